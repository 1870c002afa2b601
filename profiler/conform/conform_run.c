/* knit conform: running the conformance programs on a runtime and merging
 * their verdicts (conform.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/launch.h"
#include "cli/paths.h"
#include "cli/runtimes.h"
#include "conform/conform.h"
#include "conform/conform_helpers.h"
#include "unwind/isa.h"

/* The variables a run sets; every run starts with none of them. */
static const char *const run_vars[] = {
    "KNIT_CONFORM_OUT", "OMP_NUM_THREADS",    "OMP_CANCELLATION",  "MOCKRT_FAULT",
    "OMP_TOOL",         "OMP_TOOL_LIBRARIES", "KNIT_CONFORM_TOOL", "MOCKRT_DETERMINISTIC",
};

static bool exists(const char *path)
{
  return access(path, F_OK) == 0;
}

/* A runtime given as a path: a folder holding libgomp.so.1 and/or
 * libomp.so.5, or one such library (its folder is used). */
static bool prepare_path_runtime(knit_conform_target *t, const char *path, char *err, size_t errlen)
{
  struct stat st;
  if (stat(path, &st) != 0) {
    snprintf(err, errlen, "runtime %s: %s", path, strerror(errno));
    return false;
  }
  char dir[PATH_MAX];
  snprintf(dir, sizeof dir, "%s", path);
  if (!S_ISDIR(st.st_mode)) {
    char *slash = strrchr(dir, '/');
    if (slash)
      *slash = '\0';
    else
      snprintf(dir, sizeof dir, ".");
  }
  if (!realpath(dir, t->runtime_path)) {
    snprintf(err, errlen, "runtime %s: %s", path, strerror(errno));
    return false;
  }
  char probe[PATH_MAX + 16];
  t->abis = 0;
  if (knit_path_printf(probe, sizeof probe, "%s/libgomp.so.1", t->runtime_path) && exists(probe))
    t->abis |= KNIT_ABI_GOMP;
  if (knit_path_printf(probe, sizeof probe, "%s/libomp.so.5", t->runtime_path) && exists(probe))
    t->abis |= KNIT_ABI_KMPC;
  if (!t->abis) {
    snprintf(err, errlen, "runtime %s: no libgomp.so.1 or libomp.so.5 in %s", path,
             t->runtime_path);
    return false;
  }
  return true;
}

static const char *abi_name(unsigned abi)
{
  return abi == KNIT_ABI_KMPC ? "kmpc" : "gomp";
}

/* The ABI to check in: --abi's if the runtime speaks it; else, for a
 * runtime that speaks both, its own compiler's (__kmpc_*). */
static bool choose_abi(knit_conform_target *t, const char *name, char *err, size_t errlen)
{
  unsigned spoken = t->abis;
  t->two_abis = spoken == (KNIT_ABI_GOMP | KNIT_ABI_KMPC);
  if (t->abi_wanted && !(spoken & t->abi_wanted)) {
    snprintf(err, errlen, "runtime %s does not speak the %s ABI (it speaks %s)", name,
             abi_name(t->abi_wanted), abi_name(spoken));
    return false;
  }
  t->abis = t->abi_wanted ? t->abi_wanted : spoken & KNIT_ABI_KMPC ? KNIT_ABI_KMPC : KNIT_ABI_GOMP;
  return true;
}

/* Every helper the target's runs need is there: a missing one is named
 * before anything runs, not found out from a program that fails to load. */
static bool find_helpers(const knit_conform_target *t, char *err, size_t errlen)
{
  const char *always[] = {"conform_sampling", "libknit_ompt_checker.so", "libknit_conform_tool.so",
                          "libknit_conform_tool_null.so"};
  const char *per_abi[] = {"conform_regions", "conform_tasks", "conform_discovery"};
  char path[PATH_MAX + 64], name[64];
  for (size_t i = 0; i < sizeof always / sizeof always[0]; i++)
    if (!knit_conform_helper(t->helpers, always[i], path, sizeof path, err, errlen))
      return false;
  for (unsigned abi = KNIT_ABI_GOMP; abi <= KNIT_ABI_KMPC; abi <<= 1) {
    for (size_t i = 0; (t->abis & abi) && i < sizeof per_abi / sizeof per_abi[0]; i++) {
      snprintf(name, sizeof name, "%s_%s", per_abi[i], abi_name(abi));
      if (!knit_conform_helper(t->helpers, name, path, sizeof path, err, errlen))
        return false;
    }
  }
  return true;
}

bool knit_conform_prepare(knit_conform_target *t, char *err, size_t errlen)
{
  const char *native = knit_isa_native()->name;
  if (!t->isa)
    t->isa = native;
  if (!knit_isa_named(t->isa)) {
    char names[128];
    knit_isa_names(names, sizeof names);
    snprintf(err, errlen, "unknown ISA '%s' (%s)", t->isa, names);
    return false;
  }
  t->qemu = strcmp(t->isa, native) != 0;
  if (!knit_conform_helper_dir(t->isa, t->qemu, t->tree, sizeof t->tree, t->helpers,
                               sizeof t->helpers, err, errlen))
    return false;
  char probe[PATH_MAX + 32];
  /* Another ISA's tree without its programs is one not built (yet). */
  if (t->qemu && (!knit_path_printf(probe, sizeof probe, "%s/conform_sampling", t->helpers) ||
                  !exists(probe))) {
    snprintf(err, errlen, "the %s tree is not built (no %s; ci/build.sh %s builds it)", t->isa,
             probe, t->isa);
    return false;
  }
  if (t->runtime_path[0]) {
    char given[PATH_MAX];
    snprintf(given, sizeof given, "%s", t->runtime_path);
    if (!prepare_path_runtime(t, given, err, errlen) || !choose_abi(t, given, err, errlen))
      return false;
  } else {
    const knit_runtime *rt = knit_runtime_find(t->runtime);
    if (!rt || !rt->abis) {
      char names[256];
      knit_runtime_names(names, sizeof names);
      snprintf(err, errlen, "unknown runtime '%s' (one of %s but system, or a path)", t->runtime,
               names);
      return false;
    }
    t->abis = rt->abis;
    if (!choose_abi(t, rt->name, err, errlen))
      return false;
    if (rt->dir &&
        (!knit_path_printf(probe, sizeof probe, "%s/lib/%s/%s", t->tree, rt->dir, rt->soname) ||
         !exists(probe))) {
      snprintf(err, errlen, "runtime %s is missing for %s (no %s)", rt->name, t->isa, probe);
      return false;
    }
  }
  if ((t->abis & KNIT_ABI_KMPC) &&
      (!knit_path_printf(probe, sizeof probe, "%s/conform_regions_kmpc", t->helpers) ||
       !exists(probe))) {
    snprintf(err, errlen,
             "the %s tree has no clang-built conformance programs (no %s; clang-14 "
             "is needed)",
             t->isa, probe);
    return false;
  }
  if (!find_helpers(t, err, errlen))
    return false;
  const char *tmp = getenv("TMPDIR");
  if (!knit_path_printf(t->work, sizeof t->work, "%s/knit-conform-XXXXXX",
                        tmp && *tmp ? tmp : "/tmp") ||
      !mkdtemp(t->work)) {
    snprintf(err, errlen, "cannot make a work folder: %s", strerror(errno));
    return false;
  }
  if (!t->timeout)
    t->timeout = t->qemu ? 300 : 60;
  return true;
}

void knit_conform_cleanup(const knit_conform_target *t)
{
  if (t->keep_logs || !t->work[0])
    return;
  DIR *d = opendir(t->work);
  struct dirent *e;
  char path[PATH_MAX + 300];
  while (d && (e = readdir(d))) {
    if (e->d_name[0] != '.' && knit_path_printf(path, sizeof path, "%s/%s", t->work, e->d_name))
      unlink(path);
  }
  if (d)
    closedir(d);
  rmdir(t->work);
}

/* One program run: its name, arguments and extra environment (NAME=value). */
typedef struct run_spec {
  const char *source;  /* label in the report */
  const char *program; /* in the helper folder */
  const char *args[4];
  const char *env[6];
} run_spec;

/* The last non-empty line of a log, for evidence. */
static void last_line(const char *log, char *out, size_t len)
{
  out[0] = '\0';
  FILE *f = fopen(log, "r");
  char line[512];
  while (f && fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    size_t n = strlen(line);
    if (n == 0)
      continue;
    if (n >= len)
      n = len - 1;
    memcpy(out, line, n);
    out[n] = '\0';
  }
  if (f)
    fclose(f);
}

/* Runs spec on the target; *status is its wait status. */
static bool run_one(const knit_conform_target *t, const run_spec *spec, const char *fault,
                    const char *out, const char *log, int *status, char *err, size_t errlen)
{
  char program[PATH_MAX + 64];
  if (!knit_path_printf(program, sizeof program, "%s/%s", t->helpers, spec->program)) {
    snprintf(err, errlen, "path too long");
    return false;
  }
  char *argv[8] = {(char *)spec->program};
  for (int i = 0; i < 4 && spec->args[i]; i++)
    argv[i + 1] = (char *)spec->args[i];
  knit_launch l;
  memset(&l, 0, sizeof l);
  l.runtime = t->runtime_path[0] ? "system" : t->runtime;
  l.runtime_path = t->runtime_path[0] ? t->runtime_path : NULL;
  l.qemu = t->qemu;
  l.program = program;
  l.argv = argv;
  l.event = l.output = "";
  l.log = log;
  l.timeout = t->timeout;
  if (!knit_launch_prepare(&l, err, errlen))
    return false;
  for (size_t i = 0; i < sizeof run_vars / sizeof run_vars[0]; i++)
    unsetenv(run_vars[i]);
  setenv("KNIT_CONFORM_OUT", out, 1);
  setenv("OMP_NUM_THREADS", "4", 1);
  if (fault)
    setenv("MOCKRT_FAULT", fault, 1);
  for (int i = 0; i < 6 && spec->env[i]; i++)
    putenv((char *)spec->env[i]);
  unlink(out);
  *status = knit_launch_run(&l, err, errlen);
  for (size_t i = 0; i < sizeof run_vars / sizeof run_vars[0]; i++)
    unsetenv(run_vars[i]);
  return *status >= 0;
}

/* Merges a verdict file; returns the number of verdicts it held. */
static int merge_file(const char *path, const char *source, bool no_ompt, knit_conform_report *r,
                      int *fails)
{
  FILE *f = fopen(path, "r");
  if (!f)
    return 0;
  char line[1024];
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    char *field[5] = {0};
    char *save = NULL, *p = line;
    for (int i = 0; i < 5 && (field[i] = strtok_r(p, "\t", &save)); i++)
      p = NULL;
    if (!field[0] || !field[1])
      continue;
    if (strcmp(field[0], "runtime") == 0 && !r->runtime_version[0]) {
      snprintf(r->runtime_version, sizeof r->runtime_version, "%s", field[1]);
    } else if (strcmp(field[0], "omp_version") == 0 && !r->omp_version[0]) {
      snprintf(r->omp_version, sizeof r->omp_version, "%s", field[1]);
    } else if (strcmp(field[0], "check") == 0 && field[4]) {
      knit_verdict v;
      if (!knit_verdict_parse(field[3], &v))
        continue;
      char evidence[800];
      snprintf(evidence, sizeof evidence, "%s", field[4]);
      /* Without OMPT no tool can be found, declined or disabled: not a failure of discovery. */
      if (no_ompt && strcmp(field[2], knit_check_category_name(KNIT_CATEGORY_DISCOVERY)) == 0) {
        v = KNIT_V_UNSUPPORTED;
        snprintf(evidence, sizeof evidence, "the runtime offers no OMPT (%s)", field[4]);
      }
      /* The program's own verdict of fail explains its exit status. */
      *fails += strcmp(field[3], "fail") == 0;
      knit_conform_merge(r, field[1], field[2], v, evidence, source);
      n++;
    }
  }
  fclose(f);
  return n;
}

static bool run_and_merge(const knit_conform_target *t, const run_spec *spec, const char *fault,
                          knit_conform_report *r, char *err, size_t errlen)
{
  /* A mutation's runs are counted by the mutation suite's own line. */
  if (fault == NULL)
    knit_progress_update(t->progress, spec->source, 0, 0);
  char out[PATH_MAX + 64], log[PATH_MAX + 64];
  if (!knit_path_printf(out, sizeof out, "%s/%s.tsv", t->work, spec->source) ||
      !knit_path_printf(log, sizeof log, "%s/%s.log", t->work, spec->source)) {
    snprintf(err, errlen, "path too long");
    return false;
  }
  for (char *p = strrchr(out, '/'); *p; p++)
    if (*p == ':')
      *p = '_';
  for (char *p = strrchr(log, '/'); *p; p++)
    if (*p == ':')
      *p = '_';
  int status;
  if (!run_one(t, spec, fault, out, log, &status, err, errlen))
    return false;
  int fails = 0;
  int n = merge_file(out, spec->source, !r->ompt, r, &fails);
  bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (ok || fails > 0)
    return true;
  /* A run that ended badly without saying why is a failure of its own. */
  char tail[300], evidence[800], name[64];
  last_line(log, tail, sizeof tail);
  if (WIFSIGNALED(status))
    snprintf(evidence, sizeof evidence, "killed by signal %d%s after %d verdicts; last output: %s",
             WTERMSIG(status), WTERMSIG(status) == SIGKILL ? " (timeout)" : "", n, tail);
  else
    snprintf(evidence, sizeof evidence, "exit status %d after %d verdicts; last output: %s",
             WEXITSTATUS(status), n, tail);
  snprintf(name, sizeof name, "run_%s", spec->source);
  for (char *p = name; *p; p++)
    if (*p == ':')
      *p = '_';
  knit_conform_merge(r, name, knit_check_category_name(KNIT_CATEGORY_LIFECYCLE), KNIT_V_FAIL,
                     evidence, spec->source);
  return true;
}

bool knit_conform_run_log(const knit_conform_target *t, const char *program, const char *fault,
                          char *log, size_t loglen, char *err, size_t errlen)
{
  run_spec spec = {"fault_list", program, {NULL}, {"OMP_CANCELLATION=true", NULL}};
  char out[PATH_MAX + 64];
  if (!knit_path_printf(out, sizeof out, "%s/fault_list.tsv", t->work) ||
      !knit_path_printf(log, loglen, "%s/fault_list.log", t->work)) {
    snprintf(err, errlen, "path too long");
    return false;
  }
  int status;
  return run_one(t, &spec, fault, out, log, &status, err, errlen);
}

/* The folder the runtime's libraries come from: the named runtime's under
 * knit's lib/, a given path, or "" for the system's own. */
static void runtime_folder(const knit_conform_target *t, char *dir, size_t len)
{
  dir[0] = '\0';
  if (t->runtime_path[0]) {
    snprintf(dir, len, "%s", t->runtime_path);
    return;
  }
  const knit_runtime *rt = knit_runtime_find(t->runtime);
  if (rt && rt->dir && !knit_path_printf(dir, len, "%s/lib/%s", t->tree, rt->dir))
    dir[0] = '\0';
}

/* The offloading program runs where the tree built it and the runtime
 * brings its offloading library (libomptarget.so) beside its libomp.so.5;
 * else why not, into why. */
static bool target_runnable(const knit_conform_target *t, char *why, size_t len)
{
  char probe[PATH_MAX + 64], dir[PATH_MAX];
  if (!knit_path_printf(probe, sizeof probe, "%s/conform_target_kmpc", t->helpers) ||
      !exists(probe)) {
    snprintf(why, len,
             "the %s tree has no offloading build of the target program (clang-14 with "
             "LLVM 14's libomptarget for the ISA is needed)",
             t->isa);
    return false;
  }
  runtime_folder(t, dir, sizeof dir);
  if (!dir[0] || !knit_path_printf(probe, sizeof probe, "%s/libomptarget.so", dir) ||
      !exists(probe)) {
    snprintf(why, len, "the runtime has no offloading library (no libomptarget.so in %s)",
             dir[0] ? dir : "its folder");
    return false;
  }
  return true;
}

/* Every device check "not supported", with why, when the offloading
 * program cannot run on the target. */
static void merge_no_devices(knit_conform_report *r, const char *why)
{
  static const char *const device_checks[] = {
#define CHECK(id, name, category, level, callback, doc) #category, name,
#include "conform/checks.def"
  };
  char evidence[PATH_MAX + 200];
  snprintf(evidence, sizeof evidence, "not run: %s", why);
  for (size_t i = 0; i + 1 < sizeof device_checks / sizeof device_checks[0]; i += 2)
    if (strcmp(device_checks[i], "DEVICE") == 0)
      knit_conform_merge(r, device_checks[i + 1], knit_check_category_name(KNIT_CATEGORY_DEVICE),
                         KNIT_V_UNSUPPORTED, evidence, "target:kmpc");
}

bool knit_conform_run(const knit_conform_target *t, const char *fault, knit_conform_report *r,
                      char *err, size_t errlen)
{
  /* Until the first program says otherwise (its runtime line), OMPT is assumed. */
  if (!r->runtime_version[0])
    r->ompt = true;
  for (int abi = 0; abi < 2; abi++) {
    unsigned bit = abi ? KNIT_ABI_KMPC : KNIT_ABI_GOMP;
    if (!(t->abis & bit))
      continue;
    const char *suffix = abi ? "kmpc" : "gomp";
    char regions[32], tasks[32], discovery[32], tool[PATH_MAX + 64], null_tool[PATH_MAX + 64];
    char libs[2 * PATH_MAX + 160], null_libs[2 * PATH_MAX + 160], only[PATH_MAX + 96];
    snprintf(regions, sizeof regions, "conform_regions_%s", suffix);
    snprintf(tasks, sizeof tasks, "conform_tasks_%s", suffix);
    snprintf(discovery, sizeof discovery, "conform_discovery_%s", suffix);
    const char *d = t->helpers;
    if (!knit_path_printf(tool, sizeof tool, "%s/libknit_conform_tool.so", d) ||
        !knit_path_printf(null_tool, sizeof null_tool, "%s/libknit_conform_tool_null.so", d) ||
        !knit_path_printf(libs, sizeof libs, "OMP_TOOL_LIBRARIES=/nonexistent/tool.so:%s", tool) ||
        !knit_path_printf(null_libs, sizeof null_libs, "OMP_TOOL_LIBRARIES=%s:%s", null_tool,
                          tool) ||
        !knit_path_printf(only, sizeof only, "OMP_TOOL_LIBRARIES=%s", tool)) {
      snprintf(err, errlen, "path too long");
      return false;
    }
    size_t used = strlen(r->abis);
    snprintf(r->abis + used, sizeof r->abis - used, "%s%s", used ? ", " : "", suffix);
    const run_spec programs[] = {
        {abi ? "regions:kmpc" : "regions:gomp", regions, {NULL}, {"OMP_CANCELLATION=true", NULL}},
        {abi ? "tasks:kmpc" : "tasks:gomp", tasks, {NULL}, {NULL}},
    };
    for (size_t i = 0; i < 2; i++)
      if (!run_and_merge(t, &programs[i], fault, r, err, errlen))
        return false;
    r->ompt = strncmp(r->runtime_version, "none", 4) != 0;
    /* Target devices: clang's offloading programs only. */
    char why[PATH_MAX + 160];
    const run_spec target = {"target:kmpc", "conform_target_kmpc", {NULL}, {NULL}};
    if (abi && target_runnable(t, why, sizeof why)) {
      if (!run_and_merge(t, &target, fault, r, err, errlen))
        return false;
    } else if (abi && !fault) {
      merge_no_devices(r, why);
    }
    if (fault)
      continue;
    const run_spec finding[] = {
        {"discovery:libraries", discovery, {"libraries", tool}, {libs, NULL}},
        {"discovery:after_null", discovery, {"after_null", tool, null_tool}, {null_libs, NULL}},
        {"discovery:disabled", discovery, {"disabled", tool}, {"OMP_TOOL=disabled", only, NULL}},
        {"discovery:declines",
         discovery,
         {"declines", tool},
         {"KNIT_CONFORM_TOOL=decline", only, NULL}},
    };
    for (size_t i = 0; i < sizeof finding / sizeof finding[0]; i++)
      if (!run_and_merge(t, &finding[i], NULL, r, err, errlen))
        return false;
  }
  if (fault)
    return true;
  const run_spec sampling = {"sampling", "conform_sampling", {NULL}, {NULL}};
  return run_and_merge(t, &sampling, NULL, r, err, errlen);
}
