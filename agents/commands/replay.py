"""Replay a game record as an animated GIF or a self-contained HTML page: ``trash-replay``.

    trash-replay RECORD.json --html game.html --gif game.gif [--fps 2]

Records come from the environments (``env.unwrapped.game_record()``) or from evaluation
(``trash-evaluate A B --save-records DIR``); the pictures are :mod:`trash_env.rendering.media`'s:
a frame per decision with the position it was made in (and the policy's probabilities, where the
record has them), then the end. Needs the ``render`` extra.
"""

from __future__ import annotations

from pathlib import Path

from agents.arguments import ArgumentParser, fail, program_name
from trash_env.files import check_output_path
from trash_env.records import load_record
from trash_env.rendering.media import check_fps, frames, write_gif, write_html

COMMAND = "trash-replay"


def main(argv: list[str] | None = None) -> int:
    """The command: 0 after writing, 2 for a bad argument or record (one line on stderr)."""
    parser = ArgumentParser(prog=program_name(COMMAND), description=__doc__.splitlines()[0])
    parser.add_argument("record", type=Path, help="a game record (JSON)")
    parser.add_argument("--html", type=Path, help="write a self-contained HTML replay here")
    parser.add_argument("--gif", type=Path, help="write an animated GIF here")
    parser.add_argument("--fps", type=float, default=2.0, help="positions per second (default 2)")
    args = parser.parse_args(argv)
    try:
        if not (args.html or args.gif):
            raise ValueError("name at least one output: --html FILE or --gif FILE")
        check_fps(args.fps)
        check_output_path("--html", args.html)
        check_output_path("--gif", args.gif)
        if not args.record.is_file():
            raise ValueError(f"record {str(args.record)!r} is not a file")
        record = load_record(args.record)  # a ValueError naming the file
        try:
            shown = frames(record)  # replays it: a record that does not replay is refused before anything is written
        except ValueError as error:
            raise ValueError(f"{args.record}: {error}") from None
    except (ValueError, ImportError) as error:
        return fail(program_name(COMMAND), error)
    if args.html:
        write_html(record, args.html, args.fps, shown)
        print(f"wrote {args.html}")
    if args.gif:
        write_gif(record, args.gif, args.fps, shown)
        print(f"wrote {args.gif}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
