"""Play in the browser: ``trash-play --web`` serves :mod:`agents.commands.web.server` and its page
(``static/``)."""
