"""Tests of the shared torch/skorch training glue (sklearn_iclr.utils._skorch)."""

import copy
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch
from skorch import NeuralNet

from sklearn_iclr.utils import (
    build_mlp,
    epoch_history,
    fit_skorch_net,
    module_outputs,
    torch_num_threads,
)
from sklearn_iclr.utils._skorch import check_mlp_training_budget


def _regression():
    rng = np.random.RandomState(0)
    X = rng.randn(30, 3).astype(np.float32)
    return X, X @ np.array([[1.0], [-2.0], [0.5]], dtype=np.float32)


def _fit(seed, batch_size=8):
    X, y = _regression()
    return fit_skorch_net(
        NeuralNet,
        lambda: build_mlp(3, 1, (4,)),
        X,
        y,
        batch_size=batch_size,
        seed=seed,
        n_threads=1,
        criterion=torch.nn.MSELoss,
        optimizer=torch.optim.SGD,
        lr=0.05,
        max_epochs=3,
        verbose=0,
    )


def test_build_mlp_layers_and_widths():
    module = build_mlp(5, 3, (7, 2))
    linear = [m for m in module if isinstance(m, torch.nn.Linear)]
    assert [(m.in_features, m.out_features) for m in linear] == [(5, 7), (7, 2), (2, 3)]
    assert len(build_mlp(5, 1)) == 1


@pytest.mark.parametrize("sizes", [(0,), (-3,), (1.5,), ("4",)])
def test_build_mlp_refuses_bad_widths(sizes):
    with pytest.raises(ValueError, match="positive integers"):
        build_mlp(2, 1, sizes)


@pytest.mark.parametrize("sizes", [("64",), (1e12,), (-3,), (True,)])
def test_training_budget_checks_the_widths_first(sizes):
    # The estimators check their budget before they build the network: a
    # string width was a TypeError from the multiply-add count (InfoNCEEncoder,
    # SpuriousRobustSGD), a float one a refusal that blamed max_work.
    with pytest.raises(ValueError, match="hidden_layer_sizes must be a tuple of pos"):
        check_mlp_training_budget(100, (3, *sizes, 1), 10, 1e12, batch_size=8)


def test_read_only_arrays_raise_no_torch_warning():
    # torch warns once per process about arrays it may not write to (a
    # DataFrame's .to_numpy() under pandas 3 is read-only), hence a fresh
    # interpreter, where any such warning is an error.
    code = textwrap.dedent(
        """
        import warnings
        import numpy as np
        import torch
        from skorch import NeuralNet
        from sklearn_iclr.utils import build_mlp, fit_skorch_net, module_outputs

        warnings.filterwarnings("error", message=".*not writable")
        X = np.random.RandomState(0).randn(20, 3).astype(np.float32)
        y = X[:, :1].copy()
        X.setflags(write=False)
        y.setflags(write=False)
        net = fit_skorch_net(
            NeuralNet, lambda: build_mlp(3, 1), X, y, batch_size=8, seed=0,
            verbose=0, criterion=torch.nn.MSELoss, max_epochs=1,
        )
        rows = np.zeros((5, 3))  # float64: used without a copy
        rows.setflags(write=False)
        module_outputs(net.module_, rows)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr[-2000:]


def test_fit_is_seeded_local_and_leaves_the_module_on_cpu():
    state = torch.random.get_rng_state()
    first, second, other = _fit(0), _fit(0), _fit(1)
    assert torch.equal(torch.random.get_rng_state(), state)
    weights = [p.detach().numpy() for p in first.module_.parameters()]
    again = [p.detach().numpy() for p in second.module_.parameters()]
    for a, b in zip(weights, again, strict=True):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(weights[0], next(other.module_.parameters()).detach())
    assert all(p.device.type == "cpu" for p in first.module_.parameters())
    assert not first.module_.training


def test_minibatches_cover_every_row_once_per_epoch():
    net = _fit(0, batch_size=8)
    sizes = [batch["train_batch_size"] for batch in net.history[-1]["batches"]]
    assert sizes == [8, 8, 8, 6]  # 30 rows: three full batches and the rest


def test_epoch_history_keeps_the_requested_keys():
    records = epoch_history(_fit(0), ["train_loss", "missing"])
    assert [r["epoch"] for r in records] == [1, 2, 3]
    assert all(set(r) == {"epoch", "train_loss"} for r in records)


def test_module_outputs_match_a_plain_forward_pass():
    X, _ = _regression()
    module = _fit(0).module_
    with torch.no_grad():
        expected = module(torch.from_numpy(X)).numpy()
        exact = copy.deepcopy(module).double()(torch.from_numpy(X).double()).numpy()
    outputs = module_outputs(module, X, batch_size=7)
    # Evaluated in float64: the float32 pass up to its rounding.
    np.testing.assert_allclose(outputs, expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outputs, exact, rtol=1e-12)


def test_module_outputs_of_a_subset_equal_the_full_call_bit_for_bit():
    X, _ = _regression()
    module = _fit(0).module_
    full = module_outputs(module, X)
    for rows in (slice(0, 1), slice(1, 8), slice(5, None)):
        np.testing.assert_array_equal(module_outputs(module, X[rows]), full[rows])


def test_thread_limit_is_restored_after_an_error():
    before = torch.get_num_threads()
    with pytest.raises(RuntimeError), torch_num_threads(1):
        assert torch.get_num_threads() == 1
        raise RuntimeError("boom")
    assert torch.get_num_threads() == before


def test_build_mlp_tanh_and_float64_outputs():
    module = build_mlp(2, 3, (4,), activation="tanh").double()
    assert isinstance(module[1], torch.nn.Tanh)
    X = np.random.RandomState(0).standard_normal((5, 2))
    with torch.no_grad():
        expected = module(torch.tensor(X)).numpy()
    # float64 modules get float64 input: exact agreement with a direct pass.
    np.testing.assert_array_equal(module_outputs(module, X), expected)
    with pytest.raises(ValueError, match="'activation' parameter"):
        build_mlp(2, 1, (4,), activation="gelu")
