# Install tests (cmake -P), run by ctest from tests/install/CMakeLists.txt.
#   -DMODE=stage        cmake --install BUILD_DIR --prefix PREFIX (fresh), then
#                       check the tree: header, libtc.so with its soname links,
#                       tcConfig.cmake, tcConfigVersion.cmake, tc.pc; no test hooks.
#   -DMODE=find_package configure + build + run tests/install/consumer against
#                       PREFIX with find_package(tc) (tc::tc).
#   -DMODE=pkg_config   compile + link + run the same main.c with
#                       `pkg-config --cflags --libs tc` and the C compiler CC.
# WORK: a scratch directory for this mode (removed first).
# MODULES: the modules built (comma-separated: libtc_cuda.so, libtc_mpi.so),
# which must be installed beside libtc.so; the consumers then check that the
# installed libtc loads the installed MPI module (a size-1 group) and the
# installed examples' op library.
cmake_minimum_required(VERSION 3.18)
string(REPLACE "," ";" MODULES "${MODULES}")
set(OP_LIBRARY ${PREFIX}/${LIBDIR}/tc/op_libraries/libmyops.so)
set(CONSUMER_ARGS --op-library ${OP_LIBRARY})
if("libtc_mpi.so" IN_LIST MODULES)
  list(APPEND CONSUMER_ARGS --mpi)
endif()

# The consumer's output: the sum, the op library's op, the MPI module loaded
# from the prefix (not from the build tree) when built.
function(check_consumer_output out)
  message(STATUS "${out}")
  if(NOT out MATCHES "= 11 22 33")
    message(FATAL_ERROR "unexpected consumer output: ${out}")
  endif()
  if(NOT out MATCHES "scaled_square\\(x, 2\\) = 2 8 18")
    message(FATAL_ERROR "the installed op library did not run: ${out}")
  endif()
  if("libtc_mpi.so" IN_LIST MODULES)
    # The loaded path as the loader names it (pkg-config's has "lib/pkgconfig/../..").
    string(REGEX MATCH "loaded ([^\n]*/libtc_mpi\\.so)" _ "${out}")
    get_filename_component(loaded "${CMAKE_MATCH_1}" REALPATH)
    get_filename_component(installed "${PREFIX}/${LIBDIR}/libtc_mpi.so" REALPATH)
    if(NOT CMAKE_MATCH_1 OR NOT loaded STREQUAL installed)
      message(FATAL_ERROR "the installed libtc did not load the installed MPI module (${installed}): ${out}")
    endif()
  endif()
endfunction()

function(run)  # run(<command...>): fails the test on a non-zero exit
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "failed (${rc}): ${cmd}\n${out}\n${err}")
  endif()
  set(RUN_OUTPUT "${out}" PARENT_SCOPE)
endfunction()

if(MODE STREQUAL "stage")
  file(REMOVE_RECURSE ${PREFIX})
  run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX})
  file(GLOB_RECURSE installed RELATIVE ${PREFIX} LIST_DIRECTORIES false ${PREFIX}/*)
  list(SORT installed)
  string(REPLACE ";" "\n  " listing "${installed}")
  message(STATUS "installed under ${PREFIX}:\n  ${listing}")
  foreach(f include/tc.h include/tc_binary_ops.h include/tc_scalar_ops.h include/tc_unary_ops.h ${LIBDIR}/libtc.so ${LIBDIR}/libtc.so.${SOVERSION} ${LIBDIR}/libtc.so.${VERSION}
            ${LIBDIR}/cmake/tc/tcConfig.cmake ${LIBDIR}/cmake/tc/tcConfigVersion.cmake
            ${LIBDIR}/cmake/tc/tcTargets.cmake ${LIBDIR}/pkgconfig/tc.pc
            ${LIBDIR}/tc/op_libraries/libmyops.so)
    if(NOT EXISTS ${PREFIX}/${f})
      message(FATAL_ERROR "cmake --install did not install ${f}")
    endif()
  endforeach()
  foreach(module ${MODULES})
    if(NOT EXISTS ${PREFIX}/${LIBDIR}/${module})
      message(FATAL_ERROR "cmake --install did not install the module ${module} beside libtc.so")
    endif()
  endforeach()
  foreach(link libtc.so libtc.so.${SOVERSION})
    if(NOT IS_SYMLINK ${PREFIX}/${LIBDIR}/${link})
      message(FATAL_ERROR "${LIBDIR}/${link} is not a symbolic link")
    endif()
  endforeach()
  # Nothing from the test build: no static library, no gtest.
  foreach(f ${installed})
    if(f MATCHES "tc_static|gtest|\\.a$")
      message(FATAL_ERROR "a test artefact was installed: ${f}")
    endif()
  endforeach()
elseif(MODE STREQUAL "find_package")
  file(REMOVE_RECURSE ${WORK})
  run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/consumer -B ${WORK} -DCMAKE_PREFIX_PATH=${PREFIX}
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=${CC})
  run(${CMAKE_COMMAND} --build ${WORK})
  # The consumer's build tree carries a run path to the prefix's lib dir (CMake
  # adds one for every imported shared library it links by path).
  run(${WORK}/consumer ${CONSUMER_ARGS})
  check_consumer_output("${RUN_OUTPUT}")
elseif(MODE STREQUAL "pkg_config")
  file(REMOVE_RECURSE ${WORK})
  file(MAKE_DIRECTORY ${WORK})
  set(ENV{PKG_CONFIG_PATH} ${PREFIX}/${LIBDIR}/pkgconfig)
  run(${PKG_CONFIG} --modversion tc)
  string(STRIP "${RUN_OUTPUT}" version)
  if(NOT version STREQUAL VERSION)
    message(FATAL_ERROR "pkg-config --modversion tc says '${version}', expected ${VERSION}")
  endif()
  run(${PKG_CONFIG} --cflags tc)
  separate_arguments(cflags UNIX_COMMAND "${RUN_OUTPUT}")
  run(${PKG_CONFIG} --libs tc)
  separate_arguments(libs UNIX_COMMAND "${RUN_OUTPUT}")
  run(${PKG_CONFIG} --variable=libdir tc)
  string(STRIP "${RUN_OUTPUT}" libdir)
  message(STATUS "pkg-config: cflags ${cflags}; libs ${libs}")
  run(${CC} -std=c11 -Wall -Werror ${cflags} ${SOURCE_DIR}/consumer/main.c -o ${WORK}/consumer ${libs}
      -Wl,-rpath,${libdir})
  run(${WORK}/consumer ${CONSUMER_ARGS})
  check_consumer_output("${RUN_OUTPUT}")
else()
  message(FATAL_ERROR "install_test.cmake: unknown MODE '${MODE}'")
endif()
