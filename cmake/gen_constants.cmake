# Writes tc_constants.h: every `#define TC_*` of include/tc.h (status codes,
# dtype and device codes, TC_MAX_DIMS, the mode constants) and nothing else,
# so that the core can use tc.h's numbers without including tc.h: adding an
# ABI function then rebuilds the ABI layer only. tc.h stays the single source.
# The file is rewritten only when its content changes (its time stamp is what
# make and ninja compare), so an edit of tc.h that adds no constant rebuilds
# nothing that includes it.
#   cmake -DTC_H=include/tc.h -DOUT=build/generated/tc_constants.h -P gen_constants.cmake
if(NOT TC_H OR NOT OUT)
  message(FATAL_ERROR "gen_constants.cmake: set TC_H and OUT")
endif()
# Read as one string and split at newlines: list elements must not carry
# tc.h's brackets or semicolons (CMake would join or split them), so those
# travel as placeholders and come back when the text is written.
file(READ "${TC_H}" header)
string(REPLACE ";" "@TC_SEMI@" header "${header}")
string(REPLACE "[" "@TC_LBRACKET@" header "${header}")
string(REPLACE "]" "@TC_RBRACKET@" header "${header}")
string(REPLACE "\n" ";" lines "${header}")
set(body "")
foreach(line IN LISTS lines)
  if(NOT line MATCHES "^#define TC_[A-Z0-9_]+")
    continue()
  endif()
  # The include guard, and the export attribute (and what is made of it) are
  # not constants.
  if(line MATCHES "^#define (TC_H|TC_API|TC_OP_LIBRARY_EXPORT)( |$)")
    continue()
  endif()
  string(APPEND body "${line}\n")
endforeach()
string(REPLACE "@TC_SEMI@" ";" body "${body}")
string(REPLACE "@TC_LBRACKET@" "[" body "${body}")
string(REPLACE "@TC_RBRACKET@" "]" body "${body}")
set(text "// Generated from include/tc.h by cmake/gen_constants.cmake: do not edit.
// tc.h's constants (#define TC_*) for the code below the ABI layer, which
// never includes tc.h. The definitions are tc.h's own lines, so a file that
// includes both sees identical (hence legal) redefinitions.
#ifndef TC_CONSTANTS_H
#define TC_CONSTANTS_H
#include <stdint.h>

${body}
#endif
")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
