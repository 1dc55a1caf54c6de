/* cli.h - the command-line front end: main.c dispatches subcommands to these. Only the CLI
 * prints, parses options and chooses exit codes (0 ok, 1 usage or a claim that failed,
 * 2 input or render failure, 130/143 interrupted). */
#ifndef RE_CLI_H
#define RE_CLI_H

#define RE_EXIT_OK 0
#define RE_EXIT_USAGE 1
#define RE_EXIT_MISMATCH 1
#define RE_EXIT_FAILURE 2

/* `render-episode check MP3 [FILE...]`; argv[0] is "check". Returns the exit status. */
int cli_check(int argc, char **argv);

#endif
