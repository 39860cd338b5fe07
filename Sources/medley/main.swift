import Foundation
import MedleyCore

// Output a person reads goes to stderr; data (probe, filters --json) goes to stdout.
// Exit codes: 0 all items succeeded, 1 some failed, 2 invalid pipeline or command line, 3 internal error.
setvbuf(stdout, nil, _IOLBF, 0)
// Before any thread allocates: under `ulimit -v`/`-d`, malloc must not reserve the limit away in arenas.
ResourceLimits.prepareProcess()
// A closed pipe on stdout (`medley probe … | head`, `--events -` read by a program that quit)
// is a write error to report, not a signal that kills the run mid-item.
signal(SIGPIPE, SIG_IGN)
// SVT-AV1 prints its configuration to stderr unless told a log level (1: errors only); set here,
// before any thread, since setenv is not safe beside threads that read the environment.
setenv("SVT_LOG", "1", 0)
let arguments = Array(CommandLine.arguments.dropFirst())
let status = CommandLineInterface.main(arguments)
exit(status)
