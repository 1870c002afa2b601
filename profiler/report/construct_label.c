/* The spelling of construct names; see construct_label.h. */
#include "report/construct_label.h"

#include <stdio.h>
#include <string.h>

void knit_construct_label(char *out, size_t n, const char *construct, int body, const char *file,
                          unsigned line)
{
  snprintf(out, n, "%s%s at %s:%u", construct, body ? " body" : "", file, line);
}

int knit_construct_name_kind(const char *name)
{
  static const char *const KINDS[] = {"parallel", "task", "taskloop", "teams", "target"};
  for (size_t i = 0; i < sizeof KINDS / sizeof *KINDS; i++) {
    size_t n = strlen(KINDS[i]);
    if (strncmp(name, KINDS[i], n) != 0)
      continue;
    const char *at = name + n;
    int kind = 1;
    if ((at[0] == ' ' || at[0] == '_') && strncmp(at + 1, "body", 4) == 0) {
      at += 5;
      kind = 2;
    }
    if (!((at[0] == ' ' || at[0] == '_') && strncmp(at + 1, "at", 2) == 0 &&
          (at[3] == ' ' || at[3] == '_')))
      continue;
    /* FILE:LINE: a colon and digits to the end. */
    const char *colon = strrchr(at + 4, ':');
    if (colon == NULL || colon == at + 4 || colon[1] == '\0' ||
        colon[1 + strspn(colon + 1, "0123456789")] != '\0')
      continue;
    return kind;
  }
  return 0;
}
