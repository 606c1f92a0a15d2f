"""Triton kernels for the benchmark scripts in bench/.

Two families, each written once and used both compiled on a GPU and under Triton's interpreter:

- The project's solutions, algorithm for algorithm (solutions/*.hpp): the same tiles, masks,
  loops and order of operations, so that Triton's interpreter and the tilepuzzles simulator run
  the same work. `x.col()` is `x[:, None]`, `x.row()` is `x[None, :]`, `tl::sum<1>` is
  `tl.sum(..., axis=1)`.
- Triton's own kernels for the same algorithms as its tutorials write them (02 fused softmax,
  03 matrix multiplication, 06 fused attention), the baselines the project races on a GPU.

Importing this module imports triton: a script that wants the interpreter sets TRITON_INTERPRET=1
before it imports this module.
"""

import triton
import triton.language as tl

# ---------------------------------------------------------------------------------------------
# The project's solutions (solutions/*.hpp), one program per B0 rows.
# ---------------------------------------------------------------------------------------------


@triton.jit
def long_softmax_3loop(x, z, N0, T, B0: tl.constexpr, B1: tl.constexpr):
    """solutions/long_softmax_3loop.hpp: max, sum of exponentials, normalize; x read 3 times."""
    rows = tl.program_id(0) * B0 + tl.arange(0, B0)
    row_mask = rows < N0

    row_max = tl.full((B0, ), float("-inf"), tl.float32)
    for j in range(0, T, B1):
        cols = j + tl.arange(0, B1)
        mask = row_mask[:, None] & (cols < T)[None, :]
        block = tl.load(x + rows[:, None] * T + cols[None, :], mask, other=float("-inf"))
        row_max = tl.maximum(row_max, tl.max(block, axis=1))
    # Broadcast once, not in each loop: Triton 3.6's sm_90 compiler asserts when the result of a
    # loop that reduces is used by two later loops (OptimizeThreadLocality, `loopResult.hasOneUse()`).
    row_max_col = row_max[:, None]

    row_sum = tl.zeros((B0, ), tl.float32)
    for j in range(0, T, B1):
        cols = j + tl.arange(0, B1)
        mask = row_mask[:, None] & (cols < T)[None, :]
        block = tl.load(x + rows[:, None] * T + cols[None, :], mask, other=float("-inf"))
        row_sum = row_sum + tl.sum(tl.exp(block - row_max_col), axis=1)

    for j in range(0, T, B1):
        cols = j + tl.arange(0, B1)
        mask = row_mask[:, None] & (cols < T)[None, :]
        block = tl.load(x + rows[:, None] * T + cols[None, :], mask)
        softmax = tl.exp(block - row_max_col) / row_sum[:, None]
        tl.store(z + rows[:, None] * T + cols[None, :], softmax, mask)


@triton.jit
def long_softmax_2loop(x, z, N0, T, B0: tl.constexpr, B1: tl.constexpr):
    """solutions/long_softmax_2loop.hpp: online max and sum in one pass, then normalize."""
    rows = tl.program_id(0) * B0 + tl.arange(0, B0)
    row_mask = rows < N0

    # When the maximum grows, the sum so far is rescaled by exp(old_max - new_max).
    row_max = tl.full((B0, ), float("-inf"), tl.float32)
    row_sum = tl.zeros((B0, ), tl.float32)
    for j in range(0, T, B1):
        cols = j + tl.arange(0, B1)
        mask = row_mask[:, None] & (cols < T)[None, :]
        block = tl.load(x + rows[:, None] * T + cols[None, :], mask, other=float("-inf"))
        new_max = tl.maximum(row_max, tl.max(block, axis=1))
        row_sum = row_sum * tl.exp(row_max - new_max) + tl.sum(tl.exp(block - new_max[:, None]), axis=1)
        row_max = new_max

    for j in range(0, T, B1):
        cols = j + tl.arange(0, B1)
        mask = row_mask[:, None] & (cols < T)[None, :]
        block = tl.load(x + rows[:, None] * T + cols[None, :], mask)
        softmax = tl.exp(block - row_max[:, None]) / row_sum[:, None]
        tl.store(z + rows[:, None] * T + cols[None, :], softmax, mask)


@triton.jit
def flash_attention_simple(q, k, v, z, N0, T, B0: tl.constexpr, B1: tl.constexpr):
    """solutions/flash_attention_simple.hpp: z[i] = sum_j softmax_j(q[i] * k[j]) * v[j]."""
    rows = tl.program_id(0) * B0 + tl.arange(0, B0)
    row_mask = rows < N0
    queries = tl.load(q + rows, row_mask, other=0.0)

    row_max = tl.full((B0, ), float("-inf"), tl.float32)
    row_sum = tl.zeros((B0, ), tl.float32)
    out = tl.zeros((B0, ), tl.float32)
    for j in range(0, T, B1):
        cols = j + tl.arange(0, B1)
        col_mask = cols < T
        keys = tl.load(k + cols, col_mask, other=0.0)
        values = tl.load(v + cols, col_mask, other=0.0)

        # Columns past T must not count in the softmax.
        scores = tl.where(col_mask[None, :], queries[:, None] * keys[None, :], float("-inf"))
        new_max = tl.maximum(row_max, tl.max(scores, axis=1))
        weights = tl.exp(scores - new_max[:, None])
        rescale = tl.exp(row_max - new_max)
        row_sum = row_sum * rescale + tl.sum(weights, axis=1)
        out = out * rescale + tl.sum(weights * values[None, :], axis=1)
        row_max = new_max
    tl.store(z + rows, out / row_sum, row_mask)


@triton.jit
def matmul(x, y, z, N0, N1, N2, MID, B0: tl.constexpr, B1: tl.constexpr, B_MID: tl.constexpr):
    """solutions/matmul.hpp: batched z[b] = x[b] @ y[b], one B0 x B1 tile of z per program."""
    rows = tl.program_id(0) * B0 + tl.arange(0, B0)
    cols = tl.program_id(1) * B1 + tl.arange(0, B1)
    batch = tl.program_id(2)
    x_batch = x + batch * N0 * MID
    y_batch = y + batch * MID * N1

    acc = tl.zeros((B0, B1), tl.float32)
    for k in range(0, MID, B_MID):
        ks = k + tl.arange(0, B_MID)
        a = tl.load(x_batch + rows[:, None] * MID + ks[None, :], (rows < N0)[:, None] & (ks < MID)[None, :],
                    other=0.0)
        b = tl.load(y_batch + ks[:, None] * N1 + cols[None, :], (ks < MID)[:, None] & (cols < N1)[None, :],
                    other=0.0)
        # The simulator's dot is exact float32, not tf32.
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(z + batch * N0 * N1 + rows[:, None] * N1 + cols[None, :], acc,
             (rows < N0)[:, None] & (cols < N1)[None, :])


# ---------------------------------------------------------------------------------------------
# Triton's tutorials, the baselines on a GPU.
# ---------------------------------------------------------------------------------------------


@triton.jit
def softmax_fused(y, x, x_row_stride, y_row_stride, n_rows, n_cols, BLOCK: tl.constexpr,
                  LOOP_STAGES: tl.constexpr):
    """Tutorial 02: a whole row in registers, one read and one write of each element. As in the
    tutorial, a persistent grid: each program strides over the rows, and the loop is pipelined."""
    first_row = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row in tl.range(first_row, n_rows, row_step, num_stages=LOOP_STAGES):
        cols = tl.arange(0, BLOCK)
        mask = cols < n_cols
        values = tl.load(x + row * x_row_stride + cols, mask=mask, other=float("-inf"))
        shifted = values - tl.max(values, axis=0)
        numerator = tl.exp(shifted)
        tl.store(y + row * y_row_stride + cols, numerator / tl.sum(numerator, axis=0), mask=mask)


@triton.jit
def matmul_tutorial(a, b, c, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                    GROUP_M: tl.constexpr, INPUT_PRECISION: tl.constexpr):
    """Tutorial 03: C = A @ B with grouped program order for L2 reuse, fp32 accumulation, the
    result stored in C's dtype. INPUT_PRECISION is "tf32" or "ieee" for fp32 operands."""
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    # Rows and columns wrap around instead of being masked; the store is masked.
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a_tile = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b_tile = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a_tile, b_tile, acc, input_precision=INPUT_PRECISION)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, acc.to(c.dtype.element_ty), mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@triton.jit
def _attention_blocks(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vn, start_m, qk_scale,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr, offs_m, offs_n,
                      N_CTX):
    # STAGE 1: the key blocks left of the diagonal block (causal); 2: the diagonal block, masked;
    # 3: every key block (not causal).
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
        lo = tl.multiple_of(lo, BLOCK_M)
    else:
        lo, hi = 0, N_CTX
    k_ptrs += lo * stride_kn
    v_ptrs += lo * stride_vn
    for start_n in range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        k = tl.load(k_ptrs)
        qk = tl.dot(q, tl.trans(k))
        # Scores are kept in base 2: qk_scale includes log2(e), so exp2 gives the exponentials.
        if STAGE == 2:
            causal = offs_m[:, None] >= (start_n + offs_n[None, :])
            qk = qk * qk_scale + tl.where(causal, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(v_ptrs)
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
        k_ptrs += BLOCK_N * stride_kn
        v_ptrs += BLOCK_N * stride_vn
    return acc, l_i, m_i


@triton.jit
def attention_forward(Q, K, V, Out, sm_scale,  #
                      stride_qz, stride_qh, stride_qm, stride_qk,  #
                      stride_kz, stride_kh, stride_kn, stride_kk,  #
                      stride_vz, stride_vh, stride_vn, stride_vk,  #
                      stride_oz, stride_oh, stride_om, stride_ok,  #
                      H, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      CAUSAL: tl.constexpr):
    """Tutorial 06's forward pass (FlashAttention-2): one program per BLOCK_M queries of one head,
    the online softmax over BLOCK_N keys at a time, both products on the tensor cores. N_CTX must
    be a multiple of BLOCK_M, and BLOCK_M of BLOCK_N."""
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    q_base = Q + off_z.to(tl.int64) * stride_qz + off_h.to(tl.int64) * stride_qh
    k_base = K + off_z.to(tl.int64) * stride_kz + off_h.to(tl.int64) * stride_kh
    v_base = V + off_z.to(tl.int64) * stride_vz + off_h.to(tl.int64) * stride_vh
    o_base = Out + off_z.to(tl.int64) * stride_oz + off_h.to(tl.int64) * stride_oh

    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_base + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qk)
    k_ptrs = k_base + offs_n[:, None] * stride_kn + offs_d[None, :] * stride_kk
    v_ptrs = v_base + offs_n[:, None] * stride_vn + offs_d[None, :] * stride_vk

    m_i = tl.full((BLOCK_M, ), float("-inf"), tl.float32)
    l_i = tl.zeros((BLOCK_M, ), tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), tl.float32)
    qk_scale = sm_scale * 1.44269504  # log2(e)
    if CAUSAL:
        acc, l_i, m_i = _attention_blocks(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vn, start_m,
                                          qk_scale, BLOCK_M, BLOCK_N, 1, offs_m, offs_n, N_CTX)
        acc, l_i, m_i = _attention_blocks(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vn, start_m,
                                          qk_scale, BLOCK_M, BLOCK_N, 2, offs_m, offs_n, N_CTX)
    else:
        acc, l_i, m_i = _attention_blocks(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vn, start_m,
                                          qk_scale, BLOCK_M, BLOCK_N, 3, offs_m, offs_n, N_CTX)
    acc = acc / l_i[:, None]
    tl.store(o_base + offs_m[:, None] * stride_om + offs_d[None, :] * stride_ok, acc.to(Out.dtype.element_ty))
