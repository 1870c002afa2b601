/* The subcommands of knit. Each takes its own argument vector, argv[0] being
 * the subcommand's name, and returns the process exit status:
 * 0 success, 1 failure (or, for check, a mismatch), 2 bad usage. */
#ifndef KNIT_CLI_COMMANDS_H
#define KNIT_CLI_COMMANDS_H

/* knit record [-e EVENT] [-o DIR] [--runtime=NAME] [--qemu] -- PROGRAM [ARGS] */
int knit_cmd_record(int argc, char **argv);

/* knit run --runtime=NAME [--qemu] -- PROGRAM [ARGS] */
int knit_cmd_run(int argc, char **argv);

/* knit report [--format=tree|folded] [--view=VIEW] [--min=PCT] [--threads] [DIR] */
int knit_cmd_report(int argc, char **argv);

/* knit diff [--metrics=LIST] [--sort=KEY] [--min=PCT] [--scaling] A B */
int knit_cmd_diff(int argc, char **argv);

/* knit view [-o FILE.html] [--trace=FILE] [DIR | PROFILE.json] */
int knit_cmd_view(int argc, char **argv);

/* knit check [--update] DIR GOLDEN */
int knit_cmd_check(int argc, char **argv);
int knit_cmd_audit(int argc, char **argv);

/* knit conform --runtime=NAME|PATH [--isa=ISA] [--mutations] [--format=F] [-o FILE]
 * knit conform --summary=DIR [--format=F] [-o FILE] */
int knit_cmd_conform(int argc, char **argv);

#endif /* KNIT_CLI_COMMANDS_H */
