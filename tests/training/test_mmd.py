"""``mmd``: magnetic mirror descent as deep RL (agents/training/mmd.py, issue 52), on ``fast_ppo``'s trainer.

Checked here: the proximal term is the exact KL of the new policy from the rollout's over the legal
actions (zero where they agree, and a large coefficient keeps an update closer to the rollout's
policy); the learning rate falls linearly to nothing over the budget; the settings are the ones the
module names and play themselves one rollout behind; the built-in trains on a self-play task."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")
torch = pytest.importorskip("torch")

import agents.training.fast_ppo as fast_ppo  # noqa: E402
from agents.training.fast_ppo import MASKED, FastSettings, train_fast  # noqa: E402
from agents.training.mmd import MMD, mmd_overrides  # noqa: E402
from agents.training.sb3 import batched_vec_env  # noqa: E402
from trash_env.games import GAMES  # noqa: E402

SMALL = FastSettings(n_envs=16, n_steps=8, epochs=2, minibatch=64, hidden=(16,))


def _rollout(seed: int = 0) -> tuple[Any, ...]:
    """A network and a synthetic rollout of 4 x 16 decisions over 6 actions, some illegal."""
    torch.manual_seed(seed)
    net = fast_ppo._networks(5, 6, (8,))
    generator = torch.Generator().manual_seed(seed)
    obs = torch.randn((4, 16, 5), generator=generator)
    masks = torch.rand((4, 16, 6), generator=generator) > 0.3
    masks[..., 0] = True
    with torch.no_grad():
        logits, _ = net(obs)
        all_logp = torch.log_softmax(logits.masked_fill(~masks, MASKED), dim=-1)
    actions = torch.multinomial(all_logp.exp().reshape(-1, 6), 1, generator=generator).reshape(4, 16)
    logp = all_logp.gather(2, actions[..., None]).squeeze(2)
    advantages, returns = torch.randn((4, 16), generator=generator), torch.randn((4, 16), generator=generator)
    return net, obs, masks, actions, logp, advantages, returns, all_logp


def _kl_after(kl_coef: float) -> float:
    net, obs, masks, actions, logp, advantages, returns, all_logp = _rollout()
    settings = FastSettings(epochs=8, minibatch=64, learning_rate=3e-2, clip=1.0, kl_coef=kl_coef)
    optimizer = torch.optim.Adam(net.parameters(), lr=settings.learning_rate)
    fast_ppo._update(
        net, optimizer, settings, torch.Generator().manual_seed(1), obs, masks, actions, logp, advantages, returns,
        all_logp if kl_coef else None,
    )
    with torch.no_grad():
        new = torch.log_softmax(net(obs)[0].masked_fill(~masks, MASKED), dim=-1)
    return float((new.exp() * (new - all_logp).masked_fill(~masks, 0.0)).sum(-1).mean())


def test_the_proximal_term_keeps_an_update_near_the_rollouts_policy() -> None:
    """With the clip opened wide, an update moves the policy; MMD's KL term at a large coefficient
    holds it much nearer the rollout's (the term's sign and its gradient are right)."""
    free, held = _kl_after(0.0), _kl_after(50.0)
    assert free > 0.01 and held < free / 4


def test_the_proximal_term_is_zero_where_the_policies_agree() -> None:
    """Before any step the new policy is the rollout's: the first gradient is PPO's alone (KL(p||p) has
    no gradient), so one minibatch of one epoch gives the same network with or without the term."""
    nets = []
    for kl_coef in (0.0, 5.0):
        net, obs, masks, actions, logp, advantages, returns, all_logp = _rollout()
        settings = FastSettings(epochs=1, minibatch=64, kl_coef=kl_coef)
        optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)
        fast_ppo._update(
            net, optimizer, settings, torch.Generator().manual_seed(1), obs[:1, :], masks[:1], actions[:1],
            logp[:1], advantages[:1], returns[:1], all_logp[:1] if kl_coef else None,
        )
        nets.append([p.detach().clone() for p in net.parameters()])
    assert all(torch.allclose(a, b, atol=1e-6) for a, b in zip(*nets))


def test_the_learning_rate_falls_to_nothing_over_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    rates: list[float] = []
    original = fast_ppo._update

    def recording(net: Any, optimizer: Any, *args: Any) -> None:
        rates.append(optimizer.param_groups[0]["lr"])
        original(net, optimizer, *args)

    monkeypatch.setattr(fast_ppo, "_update", recording)
    config = GAMES["trash"].make_config("standard")
    venv = batched_vec_env("trash", SMALL.n_envs, "standard", ["random"], 0, {})
    settings = dataclasses.replace(SMALL, anneal_lr=True, learning_rate=1e-3)
    train_fast(venv, 16 * 8 * 5, "trash", config, 0, settings)
    np.testing.assert_allclose(rates, [1e-3 * (1 - k / 5) for k in range(5)], rtol=1e-6)


def test_mmds_settings_are_the_ones_named_and_play_itself_a_rollout_behind() -> None:
    assert MMD.check() is MMD
    assert (MMD.ent_coef, MMD.kl_coef, MMD.clip, MMD.epochs, MMD.anneal_lr) == (0.05, 0.05, 0.1, 4, True)
    assert MMD.snapshot_every == MMD.n_envs * MMD.n_steps and MMD.pool_size == 1
    assert FastSettings(**mmd_overrides()) == MMD


@pytest.mark.parametrize(("change", "message"), [({"kl_coef": -0.1}, "kl_coef must be 0 or more"),
                                                 ({"anneal_lr": 1}, "anneal_lr must be true or false")])
def test_bad_mmd_settings_are_refused_in_one_line(change: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        FastSettings(**change).check()


@pytest.mark.slow
def test_the_builtin_trains_on_a_self_play_task(tmp_path: Any) -> None:
    from agents.bench.runner import run_one

    result = run_one("hyn-2p-selfplay", "mmd", 0, str(tmp_path), fraction=0.05)
    assert result["valid"] and result["algorithm"] == "mmd" and result["final"]["exact"] is not None
