// A template-heavy translation unit for measuring deep compiler stacks:
// `clang++ -O2 -c bench/template_heavy.cpp` (bench/RESULTS.md, "Stacks
// deeper than the copy"). Recursive instantiation and deeply nested
// expressions make clang's parser and Sema recurse; std::variant,
// sorting and maps give the optimizer plenty to do.
#include <algorithm>
#include <map>
#include <numeric>
#include <iterator>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

template <int N>
struct Fib {
  static constexpr long value = Fib<N - 1>::value + Fib<N - 2>::value % 1000003;
};
template <>
struct Fib<1> {
  static constexpr long value = 1;
};
template <>
struct Fib<0> {
  static constexpr long value = 0;
};

template <int N, typename T>
struct Nest {
  using type = std::tuple<typename Nest<N - 1, T>::type, T>;
  static long get(long x) { return Nest<N - 1, T>::get(x * 3 + N) ^ (x >> 2); }
};
template <typename T>
struct Nest<0, T> {
  using type = T;
  static long get(long x) { return x; }
};

template <int N>
long chain(long x) {
  if constexpr (N == 0) return x;
  else return chain<N - 1>(x + N) * 7 % 1000003;
}

using Value = std::variant<int, long, double, std::string, std::vector<int>>;

template <int K>
long visit_all(const std::vector<Value>& values) {
  long total = K;
  for (const Value& v : values)
    total += std::visit(
        [](const auto& x) -> long {
          using X = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<X, std::string>) return static_cast<long>(x.size()) * K;
          else if constexpr (std::is_same_v<X, std::vector<int>>) return std::accumulate(x.begin(), x.end(), 0L) + K;
          else return static_cast<long>(x) + K;
        },
        values[0]) + static_cast<long>(v.index());
  return total;
}

template <int K>
long ranged(const std::vector<int>& xs) {
  std::vector<int> r;
  std::copy_if(xs.begin(), xs.end(), std::back_inserter(r), [](int x) { return x % (K + 2) != 0; });
  std::transform(r.begin(), r.end(), r.begin(), [](int x) { return x * K + 1; });
  std::sort(r.begin(), r.end(), [](int a, int b) { return (a ^ K) < (b ^ K); });
  if (r.size() > 100 + K) r.resize(100 + K);
  long sum = 0;
  for (int x : r) sum += x;
  std::map<int, std::string> m;
  for (int x : r) m[x % 17] += std::to_string(x);
  for (auto& [k, s] : m) sum += k * static_cast<long>(s.size());
  return sum;
}

template <int... Ks>
long many(const std::vector<Value>& values, const std::vector<int>& xs, std::integer_sequence<int, Ks...>) {
  return (... + (visit_all<Ks>(values) + ranged<Ks>(xs) + Nest<Ks % 40 + 10, int>::get(Ks)));
}

#define E1(x) ((x) * 3 + 1)
#define E2(x) E1(E1(E1(E1(x))))
#define E3(x) E2(E2(E2(E2(x))))
#define E4(x) E3(E3(E3(x)))

long deep_expression(long x) { return E4(x); }

long run(const std::vector<Value>& values, const std::vector<int>& xs) {
  return many(values, xs, std::make_integer_sequence<int, 48>{}) + Fib<700>::value + chain<700>(3) +
         deep_expression(xs.size());
}
