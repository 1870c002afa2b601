// levels_cc: levels' shape in C++, for goldens with the report's loop and
// inlined levels on C++ code: a class template in a namespace whose member
// functions are inlined, a lambda run by a parallel loop, std::vector.
//
//   main -> loop @rounds -> grid::Field<T>::sweep -> [parallel for, loop
//        @rows] -> the lambda (inlined) -> Field<T>::relax (inlined) ->
//        loop @cells -> Field<T>::touch (inlined) -> sink
//
// Each line that opens a loop carries an "@label" comment. sink is never
// inlined and takes its probe outside any loop of its own.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <knit/probe.h>

#define NOINLINE      __attribute__((noinline))
#define ALWAYS_INLINE __attribute__((always_inline)) inline

NOINLINE static std::uint64_t sink(std::uint64_t x)
{
  knit_probe();
  __asm__ __volatile__("" : "+r"(x));
  return x * 3 + 1;
}

namespace grid {

template <typename T> class Field {
public:
  explicit Field(int rows, int cols) : rows_(rows), cols_(cols), cells_(rows * cols, 1) {}

  // One pass over the rows, in parallel: each row relaxed by a lambda.
  NOINLINE T sweep(T seed)
  {
    T total = 0;
    auto row = [ this, seed ](int r) __attribute__((always_inline))
    {
      return relax(seed + T(r), r);
    };
      /* clang-format off */
#pragma omp parallel for schedule(static) reduction(^ : total)
    for (int r = 0; r < rows_; r++) total ^= row(r); // @rows
    /* clang-format on */
    return total;
  }

private:
  ALWAYS_INLINE T relax(T x, int r)
  {
    for (int c = 0; c < cols_; c++) // @cells
      x = touch(x, cells_[static_cast<std::size_t>(r * cols_ + c)]);
    return x;
  }

  ALWAYS_INLINE T touch(T x, T cell)
  {
    return T(sink(std::uint64_t(x + cell)));
  }

  int rows_, cols_;
  std::vector<T> cells_;
};

} // namespace grid

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? std::atoi(argv[1]) : 2;
  int rows = argc > 2 ? std::atoi(argv[2]) : 8, cols = argc > 3 ? std::atoi(argv[3]) : 3;
  grid::Field<std::uint64_t> field(rows, cols);
  std::uint64_t x = 7;
  for (int r = 0; r < rounds; r++) // @rounds
    x = field.sweep(x);
  std::printf("levels_cc: %d rounds, checksum %016llx\n", rounds, (unsigned long long)x);
  return 0;
}
