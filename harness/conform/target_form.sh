#!/bin/sh
# Runs the offloading conformance program where a runtime brings its device,
# then requires verdicts of its results (KNIT_CONFORM_OUT), which show the
# form of the target callbacks the checker took:
#   target_form.sh DEVICE_LIBRARY PROGRAM NAME=VERDICT...
# A pass alone would not tell a run that used the _emi callbacks from one
# that used the 5.0 ones. Without DEVICE_LIBRARY the test skips (77).
lib=$1
prog=$2
shift 2
if [ ! -e "$lib" ]; then
  echo "skip: no target device for this runtime (no $lib)"
  exit 77
fi
out=$(mktemp "${TMPDIR:-/tmp}/knit-target-form.XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT
KNIT_CONFORM_OUT=$out "$prog" || exit 1
tab=$(printf '\t')
status=0
for want in "$@"; do
  name=${want%%=*}
  verdict=${want#*=}
  line=$(grep "^check${tab}${name}${tab}" "$out")
  case "$line" in
  "check${tab}${name}${tab}"*"${tab}${verdict}${tab}"*) echo "target_form: $name: $verdict" ;;
  *)
    echo "target_form: $name: expected '$verdict', got: ${line:-no verdict}"
    status=1
    ;;
  esac
done
exit $status
