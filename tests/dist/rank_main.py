"""The entry point the mpirun'd Python tests share: run main(); on any error
print the traceback and leave at once with status 1 (os._exit), so that a
failing rank cannot hang in MPI's or libtc's exit handlers while its peers
wait, and mpirun reports the failure. SystemExit (a deliberate exit code,
such as a skip) passes through unchanged."""
import os
import sys
import traceback


def run(main):
    try:
        main()
    except SystemExit:
        raise
    except BaseException:
        traceback.print_exc()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(1)
