/* main.c - render-episode's command line (placeholder until the render command lands). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "check") == 0)
        return cli_check(argc - 1, argv + 1);
    fprintf(stderr, "render-episode: not yet\n");
    return RE_EXIT_USAGE;
}
