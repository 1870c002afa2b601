/* libFuzzer target: the golden-file parser (knit_golden_parse in
 * report/golden.c) on any text, and, for a golden it accepts, a comparison
 * of the golden with its own paths in both modes, which walks everything
 * the parser built. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/golden.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  /* The parser reads a C string, as knit_golden_read hands it one. */
  char *text = malloc(size + 1);
  if (text == NULL)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  knit_golden g;
  char err[512];
  if (knit_golden_parse(text, &g, err, sizeof err) == 0) {
    /* A golden compared with itself has no difference, whatever it holds. */
    if (knit_golden_compare(&g, &g.paths, KNIT_CHECK_EXACT, NULL) != 0)
      abort();
    knit_golden_compare(&g, &g.paths, KNIT_CHECK_SHARES, NULL);
    knit_golden_free(&g);
  }
  free(text);
  return 0;
}
