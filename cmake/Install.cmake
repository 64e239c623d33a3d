# `cmake --install build [--prefix P]` and the .deb (scripts/package.sh,
# cpack -G DEB): the swprof binary, its bash completion and man page (both
# written by the build from the command line, see CMakeLists.txt), README and
# docs/ (the manual's pages and the file format documents). The flame graph
# page is compiled into the binary. Nothing of tests/, bench/ or fuzz/ is
# installed.
include(GNUInstallDirs)

install(TARGETS swprof RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${SWPROF_BASH_COMPLETION} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${SWPROF_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
# README.md links docs/... and the pages link each other: the same layout
# under share/doc/swprof, so those links resolve there too (the links into
# the source tree, such as bench/RESULTS.md, are for readers of a checkout).
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME swprof)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "sampling profiler for native Linux programs")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
  "swprof samples native programs (C, C++, Rust, Go, anything ELF) with perf_event_open, copying the user "
  "registers and the top of the user stack at every sample, and unwinds and symbolizes them after recording. "
  "Reports: text, folded stacks, JSON, speedscope, flame graph pages and regression diffs.")
set(SWPROF_PACKAGE_MAINTAINER "swprof maintainers" CACHE STRING "the Maintainer field of the .deb (Name <email>)")
set(CPACK_PACKAGE_CONTACT "${SWPROF_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${SWPROF_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # swprof_VERSION_ARCH.deb
set(CPACK_STRIP_FILES ON)  # as Debian ships binaries: without debug sections
# Dependencies: what dpkg-shlibdeps (dpkg-dev) finds in the binary, or else
# the packages of the libraries it links (ldd build/swprof on Debian 12);
# and Capstone's, which swprof loads with dlopen (binary/capstone_library.h),
# so that no tool finds it in the binary.
set(SWPROF_CAPSTONE_PACKAGE "libcapstone${CAPSTONE_MAJOR}")
find_program(SWPROF_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(SWPROF_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "${SWPROF_CAPSTONE_PACKAGE}")  # the ones found are added to it
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
      "libc6, libstdc++6, libgcc-s1, libdw1, libelf1, libzstd1, ${SWPROF_CAPSTONE_PACKAGE}, libunwind8, libre2-9")
endif()
include(CPack)
