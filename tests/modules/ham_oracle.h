#pragma once
// Independent double-precision oracle for the ham tests: plain loops over
// row-major matrices, sharing no code with modules/ham_decomposition.cpp.
#include <torch/torch.h>

#include <cmath>
#include <utility>
#include <vector>

namespace hamgan::test {

struct Mat {
  int64_t rows = 0, cols = 0;
  std::vector<double> v;
  Mat(int64_t r, int64_t c, double fill = 0) : rows(r), cols(c), v(r * c, fill) {}
  double& operator()(int64_t i, int64_t j) { return v[i * cols + j]; }
  double operator()(int64_t i, int64_t j) const { return v[i * cols + j]; }
};

// Batch element b of a (B, rows, cols) tensor.
inline Mat from_tensor(const torch::Tensor& t, int64_t b) {
  auto a = t.to(torch::kDouble).contiguous();
  Mat m(a.size(1), a.size(2));
  auto acc = a.accessor<double, 3>();
  for (int64_t i = 0; i < m.rows; ++i)
    for (int64_t j = 0; j < m.cols; ++j) m(i, j) = acc[b][i][j];
  return m;
}

inline Mat matmul(const Mat& a, const Mat& b) {
  Mat c(a.rows, b.cols);
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t k = 0; k < a.cols; ++k)
      for (int64_t j = 0; j < b.cols; ++j) c(i, j) += a(i, k) * b(k, j);
  return c;
}

inline Mat transpose(const Mat& a) {
  Mat t(a.cols, a.rows);
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t j = 0; j < a.cols; ++j) t(j, i) = a(i, j);
  return t;
}

// Each column divided by max(its L2 norm, eps).
inline Mat normalize_columns(const Mat& a, double eps) {
  Mat o = a;
  for (int64_t j = 0; j < a.cols; ++j) {
    double s = 0;
    for (int64_t i = 0; i < a.rows; ++i) s += a(i, j) * a(i, j);
    const double n = std::max(std::sqrt(s), eps);
    for (int64_t i = 0; i < a.rows; ++i) o(i, j) = a(i, j) / n;
  }
  return o;
}

// Row-wise softmax of a / T.
inline Mat softmax_rows(const Mat& a, double temperature) {
  Mat o(a.rows, a.cols);
  for (int64_t i = 0; i < a.rows; ++i) {
    double mx = -1e300, s = 0;
    for (int64_t j = 0; j < a.cols; ++j) mx = std::max(mx, a(i, j) / temperature);
    for (int64_t j = 0; j < a.cols; ++j) s += (o(i, j) = std::exp(a(i, j) / temperature - mx));
    for (int64_t j = 0; j < a.cols; ++j) o(i, j) /= s;
  }
  return o;
}

inline double max_abs_diff(const Mat& a, const torch::Tensor& t, int64_t b) {
  Mat m = from_tensor(t, b);
  double d = 0;
  for (size_t i = 0; i < a.v.size(); ++i) d = std::max(d, std::abs(a.v[i] - m.v[i]));
  return d;
}

// Solves the symmetric positive definite system A X = B by Gauss-Jordan elimination.
inline Mat solve(Mat a, Mat b) {
  const int64_t n = a.rows;
  for (int64_t p = 0; p < n; ++p) {
    int64_t piv = p;
    for (int64_t i = p + 1; i < n; ++i)
      if (std::abs(a(i, p)) > std::abs(a(piv, p))) piv = i;
    for (int64_t j = 0; j < n; ++j) std::swap(a(p, j), a(piv, j));
    for (int64_t j = 0; j < b.cols; ++j) std::swap(b(p, j), b(piv, j));
    for (int64_t i = 0; i < n; ++i) {
      if (i == p) continue;
      const double f = a(i, p) / a(p, p);
      for (int64_t j = 0; j < n; ++j) a(i, j) -= f * a(p, j);
      for (int64_t j = 0; j < b.cols; ++j) b(i, j) -= f * b(p, j);
    }
  }
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < b.cols; ++j) b(i, j) /= a(i, i);
  return b;
}

// One multiplicative NMF update, element-wise: factor ⊙ num / (den + eps).
inline Mat nmf_update(const Mat& factor, const Mat& num, const Mat& den, double eps) {
  Mat o = factor;
  for (size_t i = 0; i < o.v.size(); ++i) o.v[i] = factor.v[i] * num.v[i] / (den.v[i] + eps);
  return o;
}

// C₀ = softmax(XᵀD / T), then `steps` × (C ← C ⊙ XᵀD / (C DᵀD + ε); D ← D ⊙ XC / (D CᵀC + ε)).
// Returns {D, C}.
inline std::pair<Mat, Mat> nmf_local_steps(const Mat& x, Mat d, int64_t steps, double t, double eps) {
  Mat c = softmax_rows(matmul(transpose(x), d), t);
  for (int64_t k = 0; k < steps; ++k) {
    c = nmf_update(c, matmul(transpose(x), d), matmul(c, matmul(transpose(d), d)), eps);
    d = nmf_update(d, matmul(x, c), matmul(d, matmul(transpose(c), c)), eps);
  }
  return {d, c};
}

}  // namespace hamgan::test
