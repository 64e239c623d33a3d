# Fixtures of the frame-pointer and analysis stepper tests: code without
# unwind info, linked into swprof_unwind_tests (see the recipe at the top of
# tests/unwind/fixtures/analysis_frames.S and analysis_chain.c). Included
# from tests/CMakeLists.txt.
enable_language(ASM)

add_library(swprof_analysis_fixtures STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/unwind/fixtures/analysis_chain.c
  ${CMAKE_CURRENT_SOURCE_DIR}/unwind/fixtures/analysis_frames.S)
set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/unwind/fixtures/analysis_chain.c PROPERTIES
  COMPILE_OPTIONS "-O2;-fomit-frame-pointer;-fno-asynchronous-unwind-tables;-fno-unwind-tables;-g0;-fno-stack-protector;-fcf-protection=none")
set_target_properties(swprof_analysis_fixtures PROPERTIES POSITION_INDEPENDENT_CODE ON)
