/* Finding unwind recipes (applying one is inline, in recipe.h). */
#include "recipe.h"

const knit_recipe *knit_recipe_find(const knit_recipe *recipes, size_t count, uint64_t pc)
{
  /* Find the last recipe whose start is <= pc, then check its end. */
  size_t lo = 0, hi = count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (recipes[mid].start <= pc)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0)
    return NULL;
  const knit_recipe *r = &recipes[lo - 1];
  return pc < r->end ? r : NULL;
}

bool knit_read_own_memory(void *ctx, uint64_t addr, uint64_t *out)
{
  (void)ctx;
  return knit_read_word_(knit_read_own_memory, NULL, addr, out);
}
