# What `cmake --install` puts under the prefix, for C and C++ consumers:
#   include/tc.h and the family headers it includes (tc_{binary,scalar,unary}_ops.h)
#   lib*/libtc.so -> libtc.so.0 -> libtc.so.0.1.0
#   lib*/libtc_cuda.so, lib*/libtc_mpi.so   the CUDA and MPI modules, when built: beside
#                                           libtc.so, where libtc's loaders look (dladdr)
#   lib*/tc/op_libraries/libmyops.so        the examples' op library (tc_load_library)
#   lib*/cmake/tc/{tcConfig,tcConfigVersion,tcTargets*}.cmake   find_package(tc): tc::tc
#   lib*/pkgconfig/tc.pc                                       pkg-config --cflags --libs tc
# tc_static (the test build, with its test hooks) is never installed.
include(CMakePackageConfigHelpers)

set(TC_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/tc CACHE STRING
    "Where tcConfig.cmake is installed (relative to the prefix)")

set_target_properties(tc PROPERTIES PUBLIC_HEADER
  "${PROJECT_SOURCE_DIR}/include/tc.h;${PROJECT_SOURCE_DIR}/include/tc_binary_ops.h;${PROJECT_SOURCE_DIR}/include/tc_scalar_ops.h;${PROJECT_SOURCE_DIR}/include/tc_unary_ops.h" EXPORT_NAME tc)

install(TARGETS tc EXPORT tcTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT dev
        PUBLIC_HEADER DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
# The modules libtc dlopen()s on first use, from its own directory
# (src/backend/cuda_loader.cpp, src/dist/process_group.cpp): runtime files, no headers.
if(TC_HAVE_CUDA)
  # The CUDA module needs cuBLAS (a shared library of the toolkit) at run time:
  # the installed module finds it where it was built against.
  set_property(TARGET tc_cuda APPEND PROPERTY INSTALL_RPATH ${CUDAToolkit_LIBRARY_DIR})
  install(TARGETS tc_cuda LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime)
endif()
if(TC_HAVE_MPI)
  install(TARGETS tc_mpi LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime)
endif()
# The examples' op library, for tc_load_library / tc.ops.load_library; it
# finds the installed libtc.so two directories up.
set_property(TARGET myops PROPERTY INSTALL_RPATH "$ORIGIN/../..")
install(TARGETS myops LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/tc/op_libraries COMPONENT runtime)

# libtc.so's dependencies (oneDNN, OpenMP) are private: a consumer links
# libtc alone, so the exported target needs no find_dependency.
install(EXPORT tcTargets NAMESPACE tc:: DESTINATION ${TC_INSTALL_CMAKEDIR} COMPONENT dev)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tcConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/cmake/tcConfig.cmake
                              INSTALL_DESTINATION ${TC_INSTALL_CMAKEDIR})
# 0.x: minor versions may change the ABI, so only the same minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/tcConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/tcConfig.cmake ${PROJECT_BINARY_DIR}/cmake/tcConfigVersion.cmake
        DESTINATION ${TC_INSTALL_CMAKEDIR} COMPONENT dev)

# tc.pc finds its prefix from its own location (${pcfiledir}), so the tree
# can be installed with `cmake --install --prefix` anywhere, or moved.
file(RELATIVE_PATH TC_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" TC_PC_TO_PREFIX "${TC_PC_TO_PREFIX}")
set(TC_PC_REQUIRES_CUDA "")
configure_file(${PROJECT_SOURCE_DIR}/cmake/tc.pc.in ${PROJECT_BINARY_DIR}/tc.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/tc.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)
