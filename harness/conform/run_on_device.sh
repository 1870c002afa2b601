#!/bin/sh
# Runs an offloading conformance program where a runtime brings its device:
#   run_on_device.sh DEVICE_LIBRARY PROGRAM [ARGS...]
# DEVICE_LIBRARY is the runtime's libomptarget.so; without it the test
# skips (77) and says why, since the program could not even be loaded.
lib=$1
shift
if [ ! -e "$lib" ]; then
  echo "skip: no target device for this runtime (no $lib)"
  exit 77
fi
exec "$@"
