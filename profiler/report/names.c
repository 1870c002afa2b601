/* Readable function names; the rules are in names.h. */
#include "report/names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The C++ runtime's demangler (libstdc++; <cxxabi.h> is C++ only). It
 * returns a malloc'd string, or NULL with *status set. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* gcc: "name._omp_fn.N" for a region's or a task's body, and
 * "name._omp_cpyfn.N" for the function that copies a task's firstprivate
 * data. */
static const char GCC_OUTLINED[] = "._omp_";
static const char CLANG_OUTLINED[] = ".omp_outlined";

static char *copy_of(const char *s, size_t n)
{
  char *out = malloc(n + 1);
  if (out != NULL) {
    memcpy(out, s, n);
    out[n] = '\0';
  }
  return out;
}

/* gfortran's __MOD_MOD_NAME: "MOD::NAME", or NULL when name is not one.
 * gfortran writes identifiers in lower case, so "_MOD_" cannot be part of
 * the module's name. */
static char *fortran_module_procedure(const char *name)
{
  if (strncmp(name, "__", 2) != 0)
    return NULL;
  const char *mod = strstr(name + 2, "_MOD_");
  if (mod == NULL || mod == name + 2 || mod[5] == '\0')
    return NULL;
  size_t module_len = (size_t)(mod - (name + 2));
  size_t n = module_len + 2 + strlen(mod + 5);
  char *out = malloc(n + 1);
  if (out != NULL)
    snprintf(out, n + 1, "%.*s::%s", (int)module_len, name + 2, mod + 5);
  return out;
}

/* The readable form of a name with no outlining suffix, newly allocated;
 * NULL when it reads as it is. */
static char *readable_base(const char *name, size_t len, const knit_name_context *ctx)
{
  char *base = copy_of(name, len);
  if (base == NULL)
    return NULL;
  char *out = NULL;
  if (strncmp(base, "_Z", 2) == 0) {
    int status = 0;
    out = __cxa_demangle(base, NULL, NULL, &status);
    if (status != 0) {
      free(out);
      out = NULL;
    }
  } else if (ctx->language != KNIT_LANGUAGE_OTHER) {
    /* A contained procedure carries the number gfortran gives it right
     * after its name ("task_work.1"), before any clone suffix gcc adds
     * (".constprop.0"), which stays. */
    if (ctx->language == KNIT_LANGUAGE_FORTRAN) {
      char *dot = strchr(base, '.');
      if (dot != NULL && dot != base) {
        size_t digits = strspn(dot + 1, "0123456789");
        if (digits > 0 && (dot[1 + digits] == '\0' || dot[1 + digits] == '.'))
          memmove(dot, dot + 1 + digits, strlen(dot + 1 + digits) + 1);
      }
      /* An external procedure links as its name and an underscore
       * (subroutine work: work_); module procedures (__m_MOD_p) and the
       * main program (MAIN__) have forms of their own. */
      size_t bl = strlen(base);
      if (bl > 1 && base[bl - 1] == '_' && base[0] != '_' && strcmp(base, "MAIN__") != 0 &&
          strstr(base, "_MOD_") == NULL)
        base[bl - 1] = '\0';
    }
    if (strcmp(base, "MAIN__") == 0 && ctx->main_program != NULL && ctx->main_program[0] != '\0')
      out = strdup(ctx->main_program);
    else
      out = fortran_module_procedure(base);
    if (out == NULL && strlen(base) != len) {
      out = base; /* only the number went */
      base = NULL;
    }
  }
  free(base);
  return out;
}

/* Where the outlining suffix of name begins (at its '.'), and the tag the
 * readable form shows for it, or NULL when name has none to show. */
static const char *outlining_suffix(const char *name, const char **tag)
{
  const char *at = strstr(name, GCC_OUTLINED);
  if (at != NULL && at != name) {
    *tag = at + 2; /* "omp_fn.N", "omp_cpyfn.N" */
    return at;
  }
  at = strstr(name, CLANG_OUTLINED);
  /* clang up to 16: ".omp_outlined." and ".omp_outlined..N", named after
   * nothing; later: "name.omp_outlined[...]". */
  if (at != NULL && at != name && name[0] != '.') {
    *tag = at + 1; /* "omp_outlined..." */
    return at;
  }
  return NULL;
}

char *knit_readable_name(const char *raw, const knit_name_context *ctx)
{
  static const knit_name_context none = {0};
  if (ctx == NULL)
    ctx = &none;
  const char *tag = NULL;
  const char *suffix = outlining_suffix(raw, &tag);
  if (suffix == NULL)
    return readable_base(raw, strlen(raw), ctx);
  size_t base_len = (size_t)(suffix - raw);
  char *base = readable_base(raw, base_len, ctx);
  const char *shown = base;
  int shown_len = (int)(base != NULL ? strlen(base) : base_len);
  if (base == NULL)
    shown = raw;
  size_t n = (size_t)shown_len + strlen(tag) + 4;
  char *out = malloc(n);
  if (out != NULL)
    snprintf(out, n, "%.*s [%s]", shown_len, shown, tag);
  free(base);
  return out;
}
