#!/bin/sh
# Doxygen INPUT_FILTER for include/tc.h (docs/Doxyfile): tc.h documents each
# declaration in a plain C comment just above it; this turns those comments
# into Doxygen comments, the file's opening comment into its \file page and the
# section banners (/* ===... */ and the padded /* Section    */ lines) into
# plain comments that document nothing. The header itself stays plain C.
sed -E \
  -e '1s|^/\*$|/** \\file tc.h|' \
  -e '/^\/\* =+ \*\/$/b' \
  -e '/^\/\* .*[^ ]  +\*\/$/b' \
  -e 's|^(\s*)/\* |\1/** |' \
  -e 's|^(\s*)/\*$|\1/**|' \
  "$1"
