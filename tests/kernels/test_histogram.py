"""The histogram kernel against its NumPy reference (hypothesis) and a hand-computed case."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from csrepro._kernels import histogram, histogram_ref


@st.composite
def problems(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n, d, k = draw(st.integers(1, 40)), draw(st.integers(1, 5)), draw(st.integers(1, 4))
    n_bins = rng.integers(1, 7, d)
    codes = np.ascontiguousarray((rng.random((n, d)) * n_bins).astype(np.int32))
    offsets = np.concatenate([[0], np.cumsum(n_bins)[:-1]]).astype(np.intp)
    channels = rng.normal(size=(n, k))
    subset = draw(st.booleans())
    samples = rng.integers(0, n, draw(st.integers(0, 2 * n))).astype(np.intp) if subset else None
    return codes, offsets, channels, samples, int(n_bins.sum())


@settings(max_examples=200, deadline=None)
@given(problems())
def test_kernel_equals_reference(problem):
    codes, offsets, channels, samples, total = problem
    got = histogram.histogram(codes, offsets, channels, samples, np.full((total, channels.shape[1]), np.nan))
    want = histogram_ref.histogram(codes, offsets, channels, samples, np.empty((total, channels.shape[1])))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_hand_computed():
    codes = np.array([[0, 1], [1, 1], [1, 0]], dtype=np.int32)
    offsets = np.array([0, 2], dtype=np.intp)
    ch = np.array([[1.0, 10.0], [2.0, 20.0], [4.0, 40.0]])
    want = np.array([[1, 10], [6, 60], [4, 40], [3, 30]], float)
    for mod in (histogram, histogram_ref):
        np.testing.assert_array_equal(mod.histogram(codes, offsets, ch, None, np.empty((4, 2))), want)
        # rows 2, 2, 0: duplicates count twice
        sub = mod.histogram(codes, offsets, ch, np.array([2, 2, 0]), np.empty((4, 2)))
        np.testing.assert_array_equal(sub, [[1, 10], [8, 80], [8, 80], [1, 10]])


@settings(max_examples=200, deadline=None)
@given(problems(), st.booleans())
def test_feature_major_kernel_equals_row_major_bit_for_bit(problem, dominant):
    """histogram_fm (feature-major uint8 codes) gives exactly histogram's sums, and the reference's to rounding;
    ``dominant``: most rows of each feature in one bin (as MNIST's zero pixels)."""
    codes, offsets, channels, samples, total = problem
    if dominant:
        rng = np.random.default_rng(int(codes.sum()) + codes.size)
        codes = np.where(rng.random(codes.shape) < 0.8, 0, codes).astype(np.int32)
    row_major = histogram.histogram(codes, offsets, channels, samples, np.empty((total, channels.shape[1])))
    for dtype in (np.uint16, np.uint8):  # uint16: features of more than 256 bins
        codes_t = np.ascontiguousarray(codes.T, dtype=dtype)
        got = histogram.histogram_fm(codes_t, offsets, channels, samples, np.full((total, channels.shape[1]), np.nan))
        np.testing.assert_array_equal(got, row_major)
    want = histogram_ref.histogram(codes, offsets, channels, samples, np.empty((total, channels.shape[1])))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_feature_major_blocks_and_wide_channels():
    """Several row blocks, d not a multiple of 4, 201 bins, a dominant bin; k = 8..24 even (REBEL's 2K: runs summed
    in registers), and other k (features four at a time, then a pair and one; a subset's channels gathered per
    block); uint16 codes."""
    rng = np.random.default_rng(0)
    n, d = 5000, 7
    codes = np.where(rng.random((n, d)) < 0.8, 0, rng.integers(0, 201, (n, d))).astype(np.int32)
    offsets = np.arange(d, dtype=np.intp) * 201
    codes_t = np.ascontiguousarray(codes.T, dtype=np.uint8)
    for k in (20, 8, 24, 26, 5, 3, 2, 1):
        ch = rng.normal(size=(n, k))
        for samples in (None, np.sort(rng.integers(0, n, 3000)), rng.integers(0, n, 3000)):
            got = histogram.histogram_fm(codes_t, offsets, ch, samples, np.empty((d * 201, k)))
            np.testing.assert_array_equal(got, histogram.histogram(codes, offsets, ch, samples, np.empty((d * 201, k))))
            wide = histogram.histogram_fm(codes_t.astype(np.uint16), offsets, ch, samples, np.empty((d * 201, k)))
            np.testing.assert_array_equal(wide, got)
            want = histogram_ref.histogram(codes, offsets, ch, samples, np.empty((d * 201, k)))
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("kernel, codes", [(histogram.histogram, np.zeros((3, 2), np.int32)),
                                           (histogram.histogram_fm, np.zeros((2, 3), np.uint8))])
def test_both_entry_points_refuse_mismatched_shapes(kernel, codes):
    offsets = np.array([0, 1], dtype=np.intp)
    with pytest.raises(ValueError, match=r"shape mismatch: codes(_t)? (3x2|2x3), offsets 2, channels 4x2"):
        kernel(codes, offsets, np.zeros((4, 2)), None, np.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"out 2x1"):
        kernel(codes, offsets, np.zeros((3, 2)), None, np.zeros((2, 1)))


@pytest.mark.parametrize("samples", [None, np.array([4, 0, 0, 3])])
def test_wider_out_gets_the_sums_in_its_first_columns(samples):
    """``out`` with more columns than channels (a tree's count column beside them): the same sums, bit for bit, in
    its first k columns, the others untouched; both entry points and the reference."""
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 5, (6, 3)).astype(np.int32)
    offsets, ch = np.arange(3, dtype=np.intp) * 5, rng.normal(size=(6, 2))
    want = histogram_ref.histogram(codes, offsets, ch, samples, np.empty((15, 2)))
    for got in (histogram.histogram(codes, offsets, ch, samples, np.full((15, 3), 7.0)),
                histogram.histogram_fm(np.ascontiguousarray(codes.T, dtype=np.uint16), offsets, ch, samples,
                                       np.full((15, 3), 7.0)),
                histogram_ref.histogram(codes, offsets, ch, samples, np.full((15, 3), 7.0))):
        np.testing.assert_array_equal(got[:, 2], 7.0)
        np.testing.assert_allclose(got[:, :2], want, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(histogram.histogram_fm(np.ascontiguousarray(codes.T, dtype=np.uint8), offsets, ch,
                                                         samples, np.full((15, 3), 7.0))[:, :2],
                                  histogram.histogram(codes, offsets, ch, samples, np.empty((15, 2))))



@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
@pytest.mark.parametrize("d", [5, 6])
def test_feature_major_counts_equal_a_channel_of_ones(dtype, d):
    """``counts``: the sums of the channels with a last channel of ones, bit for bit (all rows, subsets in any order
    with repeats, a wider out, and k = 1..3 channels; d features: four and one, four and a pair); out too narrow
    refused."""
    rng = np.random.default_rng(2)
    n = 3000
    codes = np.where(rng.random((n, d)) < 0.5, 0, rng.integers(0, 40, (n, d))).astype(np.int32)
    offsets, codes_t = np.arange(d, dtype=np.intp) * 40, np.ascontiguousarray(codes.T, dtype=dtype)
    for k in (1, 2, 3):
        ch = rng.normal(size=(n, k))
        ones = histogram_ref.with_counts(ch, np.empty((n, k + 1)))
        for samples in (None, np.sort(rng.integers(0, n, 1000)), rng.integers(0, n, 1000)):
            want = histogram.histogram_fm(codes_t, offsets, ones, samples, np.empty((d * 40, k + 1)))
            got = histogram.histogram_fm(codes_t, offsets, ch, samples, np.full((d * 40, k + 2), 7.0), True)
            np.testing.assert_array_equal(got[:, :k + 1], want)
            np.testing.assert_array_equal(got[:, k + 1], 7.0)
    with pytest.raises(ValueError, match="and a count, out"):
        histogram.histogram_fm(codes_t, offsets, ch, None, np.empty((d * 40, k)), True)

# ----------------------------------------------------------------------------- by-node histograms, sparse features

def layout_of(codes, n_bins, fraction):
    """SparseLayout of row-major ``codes`` (what BinnedData builds for uniform binnings)."""
    from csrepro.weak.binning import SparseLayout

    codes_t = np.ascontiguousarray(codes.T, dtype=np.uint8)
    counts = [np.bincount(codes[:, j], minlength=n_bins[j]) for j in range(codes.shape[1])]
    return codes_t, SparseLayout.build(codes_t, counts, fraction)


@st.composite
def node_problems(draw):
    """Codes with many repeated values (a dominant bin per feature, as MNIST's zero pixels), a layout with some
    sparse features, rows in random nodes (-1: none) or all in node 0, 1..24 channels (8..24 even: the runs)."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n, d, V = draw(st.integers(0, 60)), draw(st.integers(1, 5)), draw(st.integers(1, 4))
    k = draw(st.sampled_from([1, 2, 3, 5, 8, 10, 20, 24]))
    n_bins = rng.integers(1, 8, d)
    codes = (rng.random((n, d)) * n_bins).astype(np.int32)
    dominant = rng.integers(0, n_bins)
    codes = np.where(rng.random((n, d)) < rng.random(d), dominant, codes).astype(np.int32)
    codes_t, layout = layout_of(codes, n_bins, draw(st.sampled_from([0.0, 0.3, 0.5, 1.1])))
    offsets = np.concatenate([[0], np.cumsum(n_bins)[:-1]]).astype(np.intp)
    channels = rng.normal(size=(n, k)).round(draw(st.sampled_from([1, 15])))  # round(1): many equal values
    node = None if draw(st.booleans()) else rng.integers(-1, V, n).astype(np.int32)
    return codes, codes_t, layout, offsets, n_bins.astype(np.intp), channels, node, V


def _run_nodes(mod, problem):
    codes, codes_t, lay, offsets, n_bins, channels, node, V = problem
    out = np.full((V, int(n_bins.sum()), channels.shape[1]), np.nan)
    return mod.histogram_nodes(codes_t, offsets, n_bins, lay.default, lay.indptr, lay.indices, channels, node, out)


@settings(max_examples=300, deadline=None)
@given(node_problems())
def test_histogram_nodes_equals_reference_bit_for_bit_and_the_dense_pass_to_rounding(problem):
    """The kernel gives the reference's bits; against the dense pass over each node's rows (increasing), every bin
    but a sparse feature's default one is equal bit for bit (same additions, same order), the default bins (node
    total less the others) to rounding."""
    codes, codes_t, lay, offsets, n_bins, channels, node, V = problem
    got = _run_nodes(histogram, problem)
    np.testing.assert_array_equal(got, _run_nodes(histogram_ref, problem))
    defaults = np.zeros(int(n_bins.sum()), dtype=bool)
    sparse = lay.default >= 0
    defaults[offsets[sparse] + lay.default[sparse]] = True
    for v in range(V):
        rows = (np.arange(len(codes)) if v == 0 else np.arange(0)) if node is None else np.flatnonzero(node == v)
        dense = histogram.histogram(codes, offsets, channels, rows, np.empty(got.shape[1:]))
        np.testing.assert_array_equal(got[v][~defaults], dense[~defaults])
        scale = np.abs(channels[rows]).sum(axis=0) if len(rows) else np.zeros(channels.shape[1])
        assert np.all(np.abs(got[v][defaults] - dense[defaults]) <= 1e-13 * scale + 1e-300)


def test_histogram_nodes_row_blocks_runs_and_cursors():
    """Rows beyond one block (the sparse features' cursors carry over), 201 bins, d not a multiple of 4, the
    register runs of k = 8..24 (dense and sparse features) and the generic loops (other k, nodes)."""
    rng = np.random.default_rng(1)
    n, d = 50_000, 6
    codes = np.where(rng.random((n, d)) < [0.9, 0.7, 0.55, 0.3, 0.1, 1.0], 0, rng.integers(0, 201, (n, d)))
    codes = codes.astype(np.int32)
    n_bins = np.full(d, 201, dtype=np.intp)
    codes_t, lay = layout_of(codes, n_bins, 0.5)
    assert list(lay.default) == [0, 0, 0, -1, -1, 0]
    offsets = np.arange(d, dtype=np.intp) * 201
    node = rng.integers(-1, 3, n).astype(np.int32)
    for k, nd, V in ((24, None, 1), (20, None, 1), (8, None, 1), (3, node, 3), (26, node, 3), (5, None, 1)):
        ch = rng.normal(size=(n, k))
        problem = (codes, codes_t, lay, offsets, n_bins, ch, nd, V)
        got = _run_nodes(histogram, problem)
        np.testing.assert_array_equal(got, _run_nodes(histogram_ref, problem))
        rows = np.arange(n) if nd is None else np.flatnonzero(nd == 0)
        np.testing.assert_allclose(got[0], histogram.histogram(codes, offsets, ch, rows, np.empty(got.shape[1:])),
                                   rtol=1e-9, atol=1e-9)


def test_histogram_nodes_hand_computed():
    codes = np.array([[0, 1], [1, 1], [1, 0], [0, 0]], dtype=np.int32)
    codes_t, lay = layout_of(codes, [2, 2], 0.5)  # bins 0 and 1 tie in both features: the lowest is the default
    np.testing.assert_array_equal(lay.default, [0, 0])
    np.testing.assert_array_equal(lay.indices, [1, 2, 0, 1])
    ch = np.array([[1.0, 10.0], [2.0, 20.0], [4.0, 40.0], [8.0, 80.0]])
    args = (codes_t, np.array([0, 2], np.intp), np.array([2, 2], np.intp), lay.default, lay.indptr, lay.indices, ch)
    for mod in (histogram, histogram_ref):
        np.testing.assert_array_equal(mod.histogram_nodes(*args, None, np.empty((1, 4, 2)))[0],
                                      [[9, 90], [6, 60], [12, 120], [3, 30]])
        node = np.array([1, 0, -1, 1], dtype=np.int32)  # row 2 in no node
        np.testing.assert_array_equal(mod.histogram_nodes(*args, node, np.empty((2, 4, 2))),
                                      [[[0, 0], [2, 20], [0, 0], [2, 20]], [[9, 90], [0, 0], [8, 80], [1, 10]]])


def test_histogram_nodes_refuses_bad_arguments():
    codes_t = np.zeros((2, 3), np.uint8)
    good = dict(offsets=np.array([0, 1], np.intp), n_bins=np.array([1, 1], np.intp),
                default=np.array([-1, -1], np.int32), indptr=np.zeros(3, np.intp), indices=np.empty(0, np.int32))

    def call(node=None, out=None, **kw):
        a = {**good, **kw}
        histogram.histogram_nodes(codes_t, a["offsets"], a["n_bins"], a["default"], a["indptr"], a["indices"],
                                  np.zeros((3, 2)), node, np.zeros((1, 2, 2)) if out is None else out)

    call()
    with pytest.raises(ValueError, match="shape mismatch"):
        call(indptr=np.array([0, 0, 1], np.intp))  # indptr must end at len(indices)
    with pytest.raises(ValueError, match="shape mismatch"):
        call(out=np.zeros((1, 2, 3)))
    with pytest.raises(ValueError, match="node ids"):
        call(node=np.array([0, 1, 0], np.int32))  # node 1 of a 1-node out
    with pytest.raises(ValueError, match="node ids"):
        call(node=np.array([0, 0], np.int32))
    with pytest.raises(ValueError, match="at least one node"):
        call(out=np.zeros((0, 2, 2)))


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 50), st.integers(1, 4), st.sampled_from([1, 3, 20]))
def test_node_sums_and_routing_equal_their_references(seed, n, V, k):
    rng = np.random.default_rng(seed)
    ch = rng.normal(size=(n, k))
    node = rng.integers(-1, V, n).astype(np.int32)
    for nd in (node, None):
        got = histogram.node_sums(ch, nd, np.full((V, k), np.nan))
        np.testing.assert_array_equal(got, histogram_ref.node_sums(ch, nd, np.empty((V, k))))
        for v in range(V):
            rows = (np.arange(n) if v == 0 else []) if nd is None else node == v
            np.testing.assert_allclose(got[v], ch[rows].sum(axis=0), rtol=1e-12, atol=1e-12)
    d = 3
    codes_t = rng.integers(0, 5, (d, n)).astype(np.uint8)
    feature = rng.integers(-1, d, V).astype(np.intp)
    threshold_bin = rng.integers(0, 5, V).astype(np.intp)
    left, right = rng.integers(0, 9, V).astype(np.int32), rng.integers(0, 9, V).astype(np.int32)
    got = histogram.route_rows(codes_t, node.copy(), feature, threshold_bin, left, right)
    np.testing.assert_array_equal(got, histogram_ref.route_rows(codes_t, node.copy(), feature, threshold_bin, left,
                                                                right))
    for i in range(n):
        v = node[i]
        want = v if v < 0 else (left[v] if feature[v] < 0 or codes_t[feature[v], i] <= threshold_bin[v] else right[v])
        assert got[i] == want


def test_routing_full_code_range_and_ids_out_of_range():
    """Codes and thresholds over all of 0..255 route as the reference does; a node or feature id out of range is an
    error raised before any row moves."""
    rng = np.random.default_rng(7)
    n, d, V = 500, 4, 6
    codes_t = rng.integers(0, 256, (d, n)).astype(np.uint8)
    node = rng.integers(-1, V, n).astype(np.int32)
    feature = np.array([0, -1, 3, 2, -1, 1], dtype=np.intp)
    threshold_bin = np.array([255, 0, 0, 128, 255, 17], dtype=np.intp)
    left, right = np.arange(V, dtype=np.int32), np.arange(V, 2 * V, dtype=np.int32)
    np.testing.assert_array_equal(histogram.route_rows(codes_t, node.copy(), feature, threshold_bin, left, right),
                                  histogram_ref.route_rows(codes_t, node.copy(), feature, threshold_bin, left, right))
    for bad_node, bad_feature in ((V, 0), (0, d)):
        moved = node.copy()
        moved[3] = bad_node
        f = feature.copy()
        f[0] = bad_feature if bad_feature else f[0]
        with pytest.raises(ValueError, match="ids out of range"):
            histogram.route_rows(codes_t, moved, f, threshold_bin, left, right)
        unchanged = node.copy()
        unchanged[3] = bad_node
        np.testing.assert_array_equal(moved, unchanged)


# ----------------------------------------------------------------------------- the split scan and the pick

@st.composite
def scan_problems(draw):
    """A flat histogram over features of 1..6 bins, with a count channel (integers, zeros included) or not."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    d, k, counted = draw(st.integers(1, 5)), draw(st.integers(1, 4)), draw(st.booleans())
    n_bins = rng.integers(1, 7, d).astype(np.intp)
    offsets = np.concatenate([[0], np.cumsum(n_bins)[:-1]]).astype(np.intp)
    H = rng.normal(size=(int(n_bins.sum()), k + counted))
    if counted:
        H[:, -1] = rng.integers(0, 3, len(H))
    return np.ascontiguousarray(H), offsets, n_bins, counted


def _scan(mod, H, offsets, n_bins, counted, distinct=False):
    C, kk = int((n_bins - 1).sum()), H.shape[1] - counted
    L, R, valid, total = np.full((kk, C), np.nan), np.full((kk, C), np.nan), np.zeros(C, bool), np.full(kk, np.nan)
    index = np.full(C, -1, dtype=np.intp)
    w = mod.node_scan(H, offsets, n_bins, counted, distinct, L, R, valid.view(np.uint8), index, total)
    assert distinct or w == C
    return L[:, :w], R[:, :w], valid[:w], index[:w], total


@settings(max_examples=200, deadline=None)
@given(scan_problems(), st.booleans())
def test_node_scan_equals_reference_bit_for_bit(problem, empty_bins):
    """All candidates, and the distinct ones (bins without rows, all channels 0.0: their split repeats the one
    before it)."""
    H, offsets, n_bins, counted = problem
    if empty_bins:
        H[np.random.default_rng(len(H)).random(len(H)) < 0.5] = 0.0
    got, want = _scan(histogram, *problem), _scan(histogram_ref, *problem)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    L, R, valid, index, total = got  # and what they mean: per feature, the bins up to b left, the others right
    np.testing.assert_array_equal(index, np.arange(len(index)))
    q = 0
    for j, (o, m) in enumerate(zip(offsets, n_bins)):
        for b in range(m - 1):
            left, right = H[o:o + b + 1].sum(0), H[o + b + 1:o + m].sum(0)
            np.testing.assert_allclose(L[:, q], left[:L.shape[0]], atol=1e-12)
            np.testing.assert_allclose(R[:, q], right[:L.shape[0]], atol=1e-12)
            assert valid[q] == (not counted or (left[-1] > 0 and right[-1] > 0))
            q += 1
    np.testing.assert_allclose(total, H[:n_bins[0], :L.shape[0]].sum(0), atol=1e-12)
    dgot, dwant = _scan(histogram, *problem, True), _scan(histogram_ref, *problem, True)
    for g, w in zip(dgot, dwant):
        np.testing.assert_array_equal(g, w)
    Ld, Rd, vd, idx, _ = dgot  # the distinct ones: a subset, holding every candidate's sums up to repeats
    np.testing.assert_array_equal(Ld, L[:, idx])
    np.testing.assert_array_equal(Rd, R[:, idx])
    np.testing.assert_array_equal(vd, valid[idx])
    run = np.searchsorted(idx, np.arange(len(index)), side="right") - 1  # each candidate's first of its run
    np.testing.assert_array_equal(L, Ld[:, run])
    np.testing.assert_array_equal(valid, vd[run])



@settings(max_examples=100, deadline=None)
@given(scan_problems(), st.booleans(), st.sampled_from(["in place", "another array", "not kept"]))
def test_node_scan_of_a_difference_equals_the_scan_of_it(problem, distinct, written):
    """``minus``: the scan of H - minus (np.subtract's bits), written to ``diff`` (H itself or another array) or not
    (``diff`` None: H left as it is), as the scan of that difference; both backends; shapes checked."""
    H, offsets, n_bins, counted = problem
    sibling = np.ascontiguousarray(np.random.default_rng(len(H)).normal(size=H.shape))
    if counted:
        sibling[:, -1] = np.random.default_rng(len(H) + 1).integers(0, 3, len(H))
    parent = H + sibling
    want = _scan(histogram_ref, np.subtract(parent, sibling), offsets, n_bins, counted, distinct)
    for mod in (histogram, histogram_ref):
        P = parent.copy()
        diff = {"in place": P, "another array": np.full_like(P, np.nan), "not kept": None}[written]
        C, kk = int((n_bins - 1).sum()), H.shape[1] - counted
        L, R, valid, total = np.empty((kk, C)), np.empty((kk, C)), np.zeros(C, np.uint8), np.empty(kk)
        index = np.empty(C, dtype=np.intp)
        w = mod.node_scan(P, offsets, n_bins, counted, distinct, L, R, valid, index, total, sibling, diff)
        assert (P if diff is None else diff).tobytes() == (parent if diff is None else parent - sibling).tobytes()
        for g, x in zip((L[:, :w], R[:, :w], valid[:w].astype(bool), index[:w], total), want):
            np.testing.assert_array_equal(g, x)
    with pytest.raises(ValueError, match="minus and diff"):
        histogram.node_scan(parent, offsets, n_bins, counted, distinct, L, R, valid, index, total, None, parent)


@settings(max_examples=100, deadline=None)
@given(scan_problems(), st.booleans(), st.booleans(), st.sampled_from([0.0, 1e-12, 0.1]))
def test_node_scan_scores_its_splits_as_weighted_errors(problem, distinct, root, rtol):
    """``scores``: two channels scored as ``weighted_errors`` of the scan's outputs scores them, and its pick, bit for
    bit; both backends; other channel counts refused."""
    _, offsets, n_bins, counted = problem
    rng = np.random.default_rng(int(n_bins.sum()))
    H = np.abs(rng.normal(size=(int(n_bins.sum()), 2 + counted)))  # two class channels (and a count)
    if counted:
        H[:, -1] = rng.integers(0, 3, len(H))
    H[rng.random(len(H)) < 0.3] = 0.0  # bins without rows
    b0, d0 = (0.0, 0.0) if root else (0.25, 0.5)
    C = int((n_bins - 1).sum())
    for mod in (histogram, histogram_ref):
        L, R, valid, index = np.empty((2, C)), np.empty((2, C)), np.zeros(C, np.uint8), np.empty(C, dtype=np.intp)
        total, scores = np.empty(2), np.full(2 * C, np.nan)
        w, first, low = mod.node_scan(H, offsets, n_bins, counted, distinct, L, R, valid, index, total, None, None,
                                      scores, b0, d0, rtol)
        want = np.empty(2 * w)
        pick = histogram_ref.weighted_errors(L[0, :w], R[0, :w], L[1, :w], R[1, :w], valid[:w], b0, d0, rtol, want)
        assert scores[:2 * w].tobytes() == want.tobytes() and first == pick[0]
        np.testing.assert_array_equal(low, pick[1])
        assert w == _scan(mod, H, offsets, n_bins, counted, distinct)[0].shape[1]
    with pytest.raises(ValueError, match="scores: two channels"):
        histogram.node_scan(np.ones((len(H), 4)), offsets, n_bins, False, distinct, np.empty((4, C)), np.empty((4, C)),
                            valid, index, np.empty(4), None, None, scores)

@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 4), st.sampled_from([0.0, 0.5, 0.9]),
       st.sampled_from([None, "in place", "not kept"]), st.booleans())
def test_node_scan_of_a_tree_node_with_long_features(seed, d, empty, minus, scored):
    """A tree node's scan (two class channels and a count, distinct splits: the SSE2 loop) over features of up to 60
    bins with runs of empty bins (``empty``: their share), of its histogram or of a parent's less a sibling's (written
    in place or not kept), scored or not: the reference's outputs bit for bit."""
    rng = np.random.default_rng(seed)
    n_bins = rng.integers(1, 61, d).astype(np.intp)
    offsets = np.concatenate([[0], np.cumsum(n_bins)[:-1]]).astype(np.intp)
    B, C = int(n_bins.sum()), int((n_bins - 1).sum())
    H = np.column_stack([rng.choice([0.25, 0.5, 1.0], (B, 2)) * rng.random((B, 2)), rng.integers(1, 4, B)])
    H[rng.random(B) < empty] = 0.0
    sibling = np.column_stack([rng.random((B, 2)), rng.integers(0, 3, B)]) if minus else None
    parent = H + sibling if minus else H
    got = []
    for mod in (histogram, histogram_ref):
        P = parent.copy()
        L, R, valid = np.full((2, C), np.nan), np.full((2, C), np.nan), np.zeros(C, np.uint8)
        index = np.zeros(C, np.intp)
        total, scores = np.full(2, np.nan), np.full(2 * C, np.nan)
        extra = (scores, 0.125, 0.25, 1e-12) if scored else ()
        res = mod.node_scan(P, offsets, n_bins, True, True, L, R, valid, index, total, sibling,
                            P if minus == "in place" else None, *extra)
        w = res[0] if scored else res
        got.append((res, L[:, :w].tobytes(), R[:, :w].tobytes(), valid[:w].tobytes(), index[:w].tobytes(),
                    total.tobytes(), scores[:2 * w].tobytes(), P.tobytes()))
    assert got[0][1:] == got[1][1:]
    np.testing.assert_array_equal(got[0][0], got[1][0])


def test_node_scan_hand_computed_and_refuses_bad_layouts():
    H = np.array([[1.0, 1], [2, 2], [4, 0], [8, 1], [16, 3]])  # feature 0: bins 0-2, feature 1: bins 3-4; counted
    offsets, n_bins = np.array([0, 3], np.intp), np.array([3, 2], np.intp)
    for mod in (histogram, histogram_ref):
        L, R, valid, index, total = _scan(mod, H, offsets, n_bins, True)
        np.testing.assert_array_equal(L, [[1, 3, 8]])
        np.testing.assert_array_equal(R, [[6, 4, 16]])
        np.testing.assert_array_equal(valid, [True, False, True])  # "code_0 <= 1": no row right (bin 2 is empty)
        np.testing.assert_array_equal(total, [7])
        zero = H.copy()
        zero[1] = 0.0  # bin 1 without rows: "code_0 <= 1" repeats "code_0 <= 0"
        L, R, valid, index, total = _scan(mod, zero, offsets, n_bins, True, True)
        np.testing.assert_array_equal(index, [0, 2])
        np.testing.assert_array_equal(L, [[1, 8]])
        np.testing.assert_array_equal(R, [[4, 16]])
    with pytest.raises(ValueError, match="tile"):
        _scan(histogram, H, np.array([0, 2], np.intp), n_bins, True)
    with pytest.raises(ValueError, match="shape mismatch"):
        histogram.node_scan(H, offsets, n_bins, True, False, np.empty((2, 3)), np.empty((1, 3)),
                            np.empty(3, np.uint8), np.empty(3, np.intp), np.empty(1))


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 40), st.integers(0, 4))
def test_class_channels_and_with_counts_equal_reference(seed, n, k):
    """class_channels (labels +-1, 0, NaN; weights 0, tiny, inf) and with_counts, bit for bit (zero signs too)."""
    rng = np.random.default_rng(seed)
    w = rng.choice([0.0, 5e-324, 1.0, np.inf], n) * rng.random(n)
    y = rng.choice([1.0, -1.0, 0.0, np.nan], n)
    got = histogram.class_channels(w, y, np.empty((n, 2)))
    with np.errstate(invalid="ignore"):  # inf * 0.0
        want = histogram_ref.class_channels(w, y, np.empty((n, 2)))
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    ch = rng.normal(size=(n, k))
    got, want = histogram.with_counts(ch, np.empty((n, k + 1))), histogram_ref.with_counts(ch, np.empty((n, k + 1)))
    np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="shape mismatch"):
        histogram.with_counts(ch, np.empty((n, k + 2)))
    with pytest.raises(ValueError, match="shape mismatch"):
        histogram.class_channels(w, y, np.empty((n, 3)))


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 40), st.booleans(), st.sampled_from([0.5, 4.0]))
def test_logit_channels_equals_reference(seed, n, weighted, z_max):
    """LogitBoost's channels from tanh(F) (saturated, floored and clipped rows; sample weights or none), bit for bit
    (zero signs too); shapes checked."""
    rng = np.random.default_rng(seed)
    t = np.tanh(rng.choice([0.0, 1.0, 20.0, -20.0], n) * rng.normal(size=n))
    y = rng.choice([1.0, -1.0], n)
    sw = rng.choice([0.0, 0.5, 3.0], n) if weighted else None
    floor = 2 * np.finfo(float).eps
    got = histogram.logit_channels(t, y, sw, floor, z_max, np.full((n, 2), np.nan))
    want = histogram_ref.logit_channels(t, y, sw, floor, z_max, np.full((n, 2), np.nan))
    assert got.tobytes() == want.tobytes()
    with pytest.raises(ValueError, match="shape mismatch"):
        histogram.logit_channels(t, y, sw, floor, z_max, np.empty((n + 1, 2)))
    with pytest.raises(ValueError, match="shape mismatch"):
        histogram.logit_channels(t, y, np.ones(n + 1), floor, z_max, np.empty((n, 2)))


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 30), st.sampled_from([0.0, 0.5]))
def test_least_squares_losses_equals_reference(seed, C, ridge):
    """The candidates' least-squares losses (empty sides, zero sums, invalid splits), bit for bit as the reference
    and as LeastSquares' own loss; shapes checked."""
    from csrepro.weak.criteria import LeastSquares

    rng = np.random.default_rng(seed)
    w = [rng.random(C) * rng.choice([0.0, 1e-300, 1.0], C) for _ in range(2)]
    wz = [rng.normal(size=C) * rng.choice([0.0, 1.0, 1e3], C) for _ in range(2)]
    valid = (rng.random(C) < 0.8).astype(np.uint8)
    got = histogram.least_squares_losses(w[0], wz[0], w[1], wz[1], valid, ridge, np.full(C, np.nan))
    crit, L, R = LeastSquares(ridge), np.column_stack([w[0], wz[0]]), np.column_stack([w[1], wz[1]])
    with np.errstate(over="ignore"):  # wz^2 / w beyond the double range (w = 1e-300): inf on every side
        want = histogram_ref.least_squares_losses(w[0], wz[0], w[1], wz[1], valid, ridge, np.full(C, np.nan))
        own = np.where(valid.astype(bool), crit.loss(L, crit.value(L)) + crit.loss(R, crit.value(R)), np.inf)
    assert got.tobytes() == want.tobytes()
    assert got.tobytes() == own.tobytes()
    with pytest.raises(ValueError, match="shape mismatch"):
        histogram.least_squares_losses(w[0], wz[0], w[1], wz[1], valid, ridge, np.empty(C + 1))


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 20), st.booleans())
def test_error_sums_equals_reference(seed, C, root):
    """The interleaved error sums plus the base (a root's 0.0 leaves each sum's bits), bit for bit; shapes checked."""
    rng = np.random.default_rng(seed)
    sums = [rng.random(C) * rng.choice([0.0, 1e-300, 1.0, 1e300], C) for _ in range(4)]
    b0, d0 = (0.0, 0.0) if root else rng.random(2)
    got, want = [np.full(2 * C, np.nan) for _ in range(2)], [np.full(2 * C, np.nan) for _ in range(2)]
    histogram.error_sums(*sums, b0, d0, *got)
    histogram_ref.error_sums(*sums, b0, d0, *want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(got[0][::2], sums[0] + b0)
    np.testing.assert_array_equal(got[1][1::2], sums[2] + d0)
    if root:
        assert all(np.array_equal(g[k::2].view(np.int64), s.view(np.int64))
                   for g, k, s in [(got[0], 0, sums[0]), (got[0], 1, sums[1]), (got[1], 0, sums[3]),
                                   (got[1], 1, sums[2])])
    with pytest.raises(ValueError, match="shape mismatch"):
        histogram.error_sums(*sums, b0, d0, np.empty(2 * C + 1), got[1])


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 20), st.booleans(), st.sampled_from([0.0, 1e-12, 0.1]))
def test_weighted_errors_equals_reference(seed, C, root, rtol):
    """d + b of the error sums, inf at invalid splits, bit for bit as the reference and as NumPy's d + b of
    error_sums' b and d (ties, infinities and NaNs among the sums); the pick best_score's; shapes checked."""
    rng = np.random.default_rng(seed)
    sums = [rng.random(C) * rng.choice([0.0, 1e-300, 1.0, 1e300], C) for _ in range(4)]
    for S in sums:  # equal sums (ties), and a few inf and NaN
        S[rng.random(C) < 0.3] = 0.5
        S[rng.random(C) < 0.05] = rng.choice([np.inf, np.nan])
    b0, d0 = (0.0, 0.0) if root else rng.random(2)
    valid = (rng.random(C) < 0.8).astype(np.uint8)
    got, want = np.full(2 * C, np.nan), np.full(2 * C, np.nan)
    pick = histogram.weighted_errors(*sums, valid, b0, d0, rtol, got)
    assert pick[0] == histogram_ref.weighted_errors(*sums, valid, b0, d0, rtol, want)[0]
    assert got.tobytes() == want.tobytes()
    best = histogram.best_score(got, rtol)
    assert pick[0] == best[0] and (pick[1] == best[1] or np.isnan(pick[1]) and np.isnan(best[1]))
    b, d = np.empty(2 * C), np.empty(2 * C)
    histogram_ref.error_sums(*sums, b0, d0, b, d)
    keep = np.repeat(valid.astype(bool), 2)
    with np.errstate(invalid="ignore"):  # inf + -inf does not occur (sums >= 0), NaN + x is NaN
        assert (d + b)[keep].tobytes() == got[keep].tobytes() and np.all(got[~keep] == np.inf)
    with pytest.raises(ValueError, match="shape mismatch"):
        histogram.weighted_errors(*sums, valid, b0, d0, rtol, np.empty(2 * C + 1))


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 30), st.sampled_from([0.0, 1e-12, 0.1]))
def test_best_score_equals_reference(seed, n, rtol):
    """Ties within the tolerance, infinities and NaNs: the same pick and minimum as the reference."""
    rng = np.random.default_rng(seed)
    s = rng.choice([1.0, 1.0 + 1e-15, 2.0, -3.0, np.inf, -np.inf, np.nan, 0.0], n) * rng.choice([1, 1e3], n)
    s = np.where(rng.random(n) < 0.5, s, rng.normal(size=n))
    got, want = histogram.best_score(s, rtol), histogram_ref.best_score(s, rtol)
    assert got[0] == want[0]
    np.testing.assert_array_equal(got[1], want[1])
    if n and np.isfinite(s).any():
        low, top = s[np.isfinite(s)].min(), np.abs(s[np.isfinite(s)]).max()
        assert s[got[0]] <= low + rtol * top and not np.any(s[:got[0]] <= low + rtol * top)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 60), st.integers(0, 11), st.booleans())
def test_tree_leaves_equals_reference(seed, n, n_splits, fortran):
    """tree_leaves (bit patterns up to 8 splits, walks beyond) maps each row of a random best-first tree (ties
    x == threshold and NaN included) to the leaf the reference does, on C- and Fortran-ordered X and strided node
    arrays."""
    rng = np.random.default_rng(seed)
    d = 3
    X = rng.integers(0, 4, (n, d)).astype(float)
    X[rng.random((n, d)) < 0.1] = np.nan
    X = np.asfortranarray(X) if fortran else X
    feature, threshold, children, leaves = [-1], [np.nan], [[-1, -1]], [0]
    for _ in range(n_splits):  # split a random leaf: its children get the next ids
        v = leaves.pop(rng.integers(len(leaves)))
        feature[v], threshold[v], children[v] = int(rng.integers(d)), float(rng.integers(0, 4)), [len(feature),
                                                                                                   len(feature) + 1]
        leaves += [len(feature), len(feature) + 1]
        feature += [-1, -1]
        threshold += [np.nan, np.nan]
        children += [[-1, -1], [-1, -1]]
    leaf = np.full(len(feature), -1, dtype=np.intp)
    leaf[leaves] = rng.permutation(len(leaves))
    children = np.array(children, dtype=np.intp)
    args = (np.array(feature, dtype=np.intp), np.array(threshold), children[:, 0], children[:, 1], leaf)
    got = histogram.tree_leaves(X, *args, np.full(n, -7, dtype=np.intp))
    np.testing.assert_array_equal(got, histogram_ref.tree_leaves(X, *args, np.empty(n, dtype=np.intp)))
    for i in range(n):  # by hand
        v = 0
        while feature[v] >= 0:
            v = children[v, 0] if X[i, feature[v]] <= threshold[v] else children[v, 1]
        assert got[i] == leaf[v]


def test_tree_leaves_refuses_bad_trees():
    """A feature beyond X's columns, or a child id not after its parent (a cycle), is an error."""
    X, out = np.zeros((3, 2)), np.empty(3, dtype=np.intp)
    leaf = np.array([-1, 0, 1], dtype=np.intp)
    for feature, left, right in (([2, -1, -1], [1, -1, -1], [2, -1, -1]), ([0, -1, -1], [0, -1, -1], [2, -1, -1]),
                                 ([0, -1, -1], [1, -1, -1], [3, -1, -1])):
        with pytest.raises(ValueError):
            histogram.tree_leaves(X, np.array(feature, dtype=np.intp), np.zeros(3), np.array(left, dtype=np.intp),
                                  np.array(right, dtype=np.intp), leaf, out)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 60), st.sampled_from([np.uint8, np.uint16, np.int32]),
       st.booleans())
def test_partition_rows_equals_reference(seed, n, dtype, subset):
    """partition_rows puts a node's rows with code <= b first, then the others, each in the given order."""
    rng = np.random.default_rng(seed)
    column = rng.integers(0, 6, n).astype(dtype)
    rows = rng.choice(n, rng.integers(0, n + 1), replace=False) if subset and n else None
    b = int(rng.integers(-1, 7))
    got = np.full(n if rows is None else len(rows), -1, dtype=np.intp)
    n_left = histogram.partition_rows(column, rows, b, got)
    ref = np.empty(len(got), dtype=np.intp)
    assert n_left == histogram_ref.partition_rows(column, rows, b, ref)
    np.testing.assert_array_equal(got, ref)
    order = np.arange(n) if rows is None else rows
    np.testing.assert_array_equal(got[:n_left], order[column[order] <= b])
    np.testing.assert_array_equal(got[n_left:], order[column[order] > b])
    for bad in (n, -1):  # a row out of range, last or among valid ones
        with pytest.raises(ValueError, match="rows must lie"):
            histogram.partition_rows(column, np.array([0] * bool(n) + [bad]), b, np.empty(1 + bool(n), dtype=np.intp))


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 60), st.sampled_from([np.uint8, np.uint16, np.int32]))
def test_split_outputs_equals_reference(seed, n, dtype):
    """A stump's two outputs by code <= b (zero signs and NaN kept), bit for bit, on every row or on a subset (in any
    order; the other entries left as they are); shapes and rows checked."""
    rng = np.random.default_rng(seed)
    column = rng.integers(0, 6, n).astype(dtype)
    b = int(rng.integers(-1, 7))
    left, right = rng.choice([-0.0, 0.5, np.nan, -np.inf], 2)
    got = histogram.split_outputs(column, b, left, right, np.empty(n))
    want = histogram_ref.split_outputs(column, b, left, right, np.empty(n))
    assert got.tobytes() == want.tobytes()
    rows = rng.permutation(n)[:int(rng.integers(0, n + 1))]
    got = histogram.split_outputs(column, b, left, right, np.full(n, 7.0), rows)
    want = histogram_ref.split_outputs(column, b, left, right, np.full(n, 7.0), rows)
    assert got.tobytes() == want.tobytes()
    with pytest.raises(ValueError, match="shape mismatch"):
        histogram.split_outputs(column, b, left, right, np.empty(n + 1))
    with pytest.raises(ValueError, match="rows must lie"):
        histogram.split_outputs(column, b, left, right, np.empty(n), np.array([n]))
