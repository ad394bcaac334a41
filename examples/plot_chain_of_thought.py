"""
=======================================================================
Chain of thought for parity: next-token pretraining, then RL rounds
=======================================================================

The parity of ``d`` bits is out of reach of a linear model, but each prefix
parity ``x_1 ... x_k`` is linear given the previous one. The training data
mixes short answers (the parity alone) with a share ``p_cot`` of long
demonstrations (the chain of prefix parities), as in Tsilivis, Malach,
Ullrich & Kempe (ICLR 2026).

:class:`~sklearn_iclr.sequence.ChainOfThoughtClassifier` pretrains an
autoregressive chain of log-linear next-token models by maximum likelihood.
With ``p_cot = 0.25 < 1/3`` its greedy responses stop after one token and
answer at chance, although sampled responses are long a quarter of the time.
Rounds of reinforcement learning with the outcome reward (STaR, REINFORCE,
GRPO) amplify the long, correct responses: the share of long samples grows,
the greedy response turns long and the accuracy goes to 1.
"""

import matplotlib.pyplot as plt

from sklearn_iclr.datasets import make_cot_parity
from sklearn_iclr.sequence import ChainOfThoughtClassifier

d, p_cot, n_rounds = 16, 0.25, 6
X, y, sequences = make_cot_parity(3000, d, p_cot=p_cot, random_state=0)
X_test, y_test, _ = make_cot_parity(1000, d, p_cot=p_cot, random_state=1)

histories = {}
for rl in ["star", "reinforce", "grpo"]:
    est = ChainOfThoughtClassifier(rl=rl, n_rl_rounds=n_rounds, random_state=0)
    est.fit(X, y, sequences=sequences)
    histories[rl] = est.history_
    print(f"{rl:>9}: held-out greedy accuracy {est.score(X_test, y_test):.3f}")

# %%
# Accuracy, greedy response length and share of long samples per round
# -----------------------------------------------------------------------
# Round 0 is the pretrained model. ``long_share`` is the exact probability
# that a response sampled at temperature 1 is longer than one token.

fig, axes = plt.subplots(1, 3, figsize=(12, 3.5))
for rl, history in histories.items():
    rounds = [h["round"] for h in history]
    axes[0].plot(rounds, [h["greedy_accuracy"] for h in history], "o-", label=rl)
    axes[1].plot(rounds, [h["median_length"] for h in history], "o-", label=rl)
    axes[2].plot(rounds, [h["long_share"] for h in history], "o-", label=rl)
axes[0].set(xlabel="RL round", ylabel="greedy accuracy (training prompts)")
axes[1].set(xlabel="RL round", ylabel="median greedy length")
axes[2].set(xlabel="RL round", ylabel="share of long samples")
axes[2].axhline(1 / 3, color="grey", ls=":", label="1/3")
axes[0].legend()
axes[2].legend()
fig.suptitle(f"Parity of d = {d} bits, p_cot = {p_cot}")
fig.tight_layout()
plt.show()
