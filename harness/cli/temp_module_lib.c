/* The module temp_module loads from a temporary file (temp_module.c). */
#include <knit/probe.h>

/* Called once while the file is still there: a probe here makes knit look
 * at the load map (and so see the module) before the file goes. */
void temp_module_touch(void)
{
  knit_probe();
}

/* The work the report must name, with this file's lines, though the file
 * the module was loaded from is gone. */
__attribute__((noinline)) unsigned long temp_module_spin(unsigned rounds)
{
  unsigned long x = 0x9e3779b97f4a7c15ul;
  for (unsigned r = 0; r < rounds; r++) {
    for (unsigned i = 0; i < 1000; i++)
      x = x * 6364136223846793005ul + 1442695040888963407ul;
    knit_probe(); /* @temp_module_probe */
  }
  return x;
}
