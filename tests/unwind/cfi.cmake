# Fixtures of the CFI table and stepper tests: tiny shared libraries whose
# .eh_frame/.debug_frame come from the .cfi_* directives of
# tests/unwind/fixtures/cfi_*.S (see the recipe at the top of cfi_rules.S).
# One is linked with .eh_frame_hdr (the usual case) and one without, so both
# ways of enumerating FDEs are exercised. Included from tests/CMakeLists.txt.
set(SWPROF_CFI_FIXTURE_SOURCES
  ${CMAKE_CURRENT_SOURCE_DIR}/unwind/fixtures/cfi_rules.S
  ${CMAKE_CURRENT_SOURCE_DIR}/unwind/fixtures/cfi_debug_frame.S)
# Every target using ASM lives in tests/, so enabling it here is enough.
enable_language(ASM)

add_library(swprof_cfi_fixture SHARED ${SWPROF_CFI_FIXTURE_SOURCES})
target_link_options(swprof_cfi_fixture PRIVATE -nostdlib -Wl,--eh-frame-hdr)

add_library(swprof_cfi_fixture_nohdr SHARED ${SWPROF_CFI_FIXTURE_SOURCES})
target_link_options(swprof_cfi_fixture_nohdr PRIVATE -nostdlib -Wl,--no-eh-frame-hdr)

# One FDE of 80,000 rows (tests/unwind/fixtures/cfi_long_fde.S).
add_library(swprof_cfi_long_fixture SHARED ${CMAKE_CURRENT_SOURCE_DIR}/unwind/fixtures/cfi_long_fde.S)
target_link_options(swprof_cfi_long_fixture PRIVATE -nostdlib -Wl,--eh-frame-hdr)

# The epilogues of the return-path tests (tests/unwind/fixtures/return_paths.S).
add_library(swprof_return_path_fixture SHARED ${CMAKE_CURRENT_SOURCE_DIR}/unwind/fixtures/return_paths.S)
target_link_options(swprof_return_path_fixture PRIVATE -nostdlib -Wl,--eh-frame-hdr)

# Link through the C driver (the ASM language has no shared-library link rule
# when it is enabled below the top directory).
set_target_properties(swprof_cfi_fixture swprof_cfi_fixture_nohdr swprof_cfi_long_fixture swprof_return_path_fixture
                      PROPERTIES LINKER_LANGUAGE C)

list(APPEND SWPROF_TEST_FIXTURES swprof_cfi_fixture swprof_cfi_fixture_nohdr swprof_cfi_long_fixture
     swprof_return_path_fixture)
target_compile_definitions(swprof_test_environment INTERFACE
  SWPROF_CFI_FIXTURE="$<TARGET_FILE:swprof_cfi_fixture>"
  SWPROF_CFI_FIXTURE_NOHDR="$<TARGET_FILE:swprof_cfi_fixture_nohdr>"
  SWPROF_CFI_LONG_FIXTURE="$<TARGET_FILE:swprof_cfi_long_fixture>"
  SWPROF_RETURN_PATH_FIXTURE="$<TARGET_FILE:swprof_return_path_fixture>")
