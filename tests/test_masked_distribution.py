"""``training.masked_distribution``: sb3-contrib's masked categorical, the same numbers (log-probabilities, entropy,
mode and their gradients), samples of the same law that never draw a masked action, and MaskablePPO training
through it."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution

from cardboard.training.masked_distribution import FastMaskableCategoricalDistribution, use_fast_masked_distribution


def both(logits: torch.Tensor, masks: torch.Tensor | None):
    """sb3-contrib's distribution and ours over the same logits (each its own leaf, for the gradients)."""
    out = []
    for kind in (MaskableCategoricalDistribution, FastMaskableCategoricalDistribution):
        leaf = logits.clone().requires_grad_(True)
        dist = kind(logits.shape[1]).proba_distribution(leaf)
        dist.apply_masking(masks)
        out.append((leaf, dist))
    return out


@pytest.mark.parametrize("masked", [True, False])
def test_the_same_log_probs_entropy_mode_and_gradients_as_sb3_contrib(masked):
    rng = np.random.default_rng(0)
    logits = torch.as_tensor(rng.normal(0, 3, (64, 40)), dtype=torch.float32)
    masks = torch.as_tensor(rng.random((64, 40)) < 0.2) if masked else None
    if masked:
        masks[np.arange(64), rng.integers(0, 40, 64)] = True  # a legal action in every row
        masks[0] = False
        masks[0, 7] = True  # a row with one legal action: probability 1, entropy 0
    actions = torch.as_tensor([int(rng.choice(np.flatnonzero(m))) for m in masks] if masked else
                              rng.integers(0, 40, 64))
    (theirs_leaf, theirs), (ours_leaf, ours) = both(logits, masks)
    for leaf, dist in ((theirs_leaf, theirs), (ours_leaf, ours)):
        (dist.log_prob(actions).sum() + 0.3 * dist.entropy().sum()).backward()
    torch.testing.assert_close(ours.log_prob(actions), theirs.log_prob(actions), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(ours.entropy(), theirs.entropy(), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(ours_leaf.grad, theirs_leaf.grad, rtol=1e-5, atol=1e-5)
    assert torch.equal(ours.mode(), theirs.mode())
    if masked:
        assert ours.log_prob(actions)[0].item() == pytest.approx(0.0, abs=1e-6) and ours.entropy()[0].item() == 0.0


def test_samples_follow_the_masked_probabilities_and_never_a_masked_action():
    probs = torch.tensor([0.5, 0.1, 0.3, 0.1, 0.1])  # actions 1 and 4 masked: 0.5 / 0.3 / 0.1 of 0.9
    masks = torch.tensor([True, False, True, True, False])
    dist = FastMaskableCategoricalDistribution(5).proba_distribution(probs.log().repeat(40_000, 1))
    dist.apply_masking(masks.repeat(40_000, 1))
    torch.manual_seed(0)
    counts = np.bincount(dist.sample().numpy(), minlength=5) / 40_000
    assert counts[1] == counts[4] == 0
    np.testing.assert_allclose(counts[[0, 2, 3]], [0.5 / 0.9, 0.3 / 0.9, 0.1 / 0.9], atol=0.01)  # 4 sigma: 0.01


@pytest.mark.parametrize("u", [0.0, 1.0 - 2 ** -24])
def test_the_ends_of_the_uniform_draw_a_legal_action(u, monkeypatch):
    """u = 0 and the largest float32 below 1: the first and the last legal action, past masked ones at both ends."""
    masks = torch.tensor([[False, True, False, True, False]])
    dist = FastMaskableCategoricalDistribution(5).proba_distribution(torch.zeros(1, 5))
    dist.apply_masking(masks)
    monkeypatch.setattr(torch, "rand", lambda shape, **kwargs: torch.full(shape, u, **kwargs))
    assert dist.sample().tolist() == ([1] if u == 0.0 else [3])


def test_maskable_ppo_trains_through_it_and_saves_a_plain_policy(tmp_path):
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    import cardboard
    from cardboard.envs.vector_env import sb3_vec_env

    env = sb3_vec_env(cardboard.make_vec_env("lords_of_war", 16, opponent="random", seed=3))
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=256, n_epochs=1, seed=3,
                        policy_kwargs=dict(net_arch=[32]))
    use_fast_masked_distribution(model.policy)
    assert isinstance(model.policy.action_dist, FastMaskableCategoricalDistribution)
    model.learn(1024)
    obs = env.reset()
    masks = env.action_masks()
    actions, _ = model.predict(obs, action_masks=masks)
    assert masks[np.arange(16), actions].all()
    model.save(tmp_path / "model.zip")
    loaded = MaskablePPO.load(tmp_path / "model.zip")
    assert type(loaded.policy) is MaskableActorCriticPolicy
    deterministic = model.predict(obs, action_masks=masks, deterministic=True)[0]
    assert np.array_equal(loaded.predict(obs, action_masks=masks, deterministic=True)[0], deterministic)
