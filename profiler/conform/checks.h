/* The categories of the conformance checks (checks.def) as C names, for the
 * programs that give the verdicts and the report that lists them, so that
 * both spell and order them from the one list. */
#ifndef KNIT_CONFORM_CHECKS_H
#define KNIT_CONFORM_CHECKS_H

typedef enum knit_check_category {
#define CATEGORY(id, name) KNIT_CATEGORY_##id,
#include "checks.def"
  KNIT_CATEGORY_COUNT
} knit_check_category;

/* The category's name, as verdict lines and reports spell it. */
static inline const char *knit_check_category_name(knit_check_category c)
{
  static const char *const names[KNIT_CATEGORY_COUNT] = {
#define CATEGORY(id, name) name,
#include "checks.def"
  };
  return (unsigned)c < KNIT_CATEGORY_COUNT ? names[c] : "?";
}

#endif /* KNIT_CONFORM_CHECKS_H */
