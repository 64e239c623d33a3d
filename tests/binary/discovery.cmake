# Fixture of the function-discovery tests: tests/binary/fixtures/discovery.S
# linked -nostdlib -static -no-pie, and its stripped twin (see the recipe at
# the top of the .S). Included from tests/CMakeLists.txt.
enable_language(ASM)
add_executable(swprof_discovery_fixture ${CMAKE_CURRENT_SOURCE_DIR}/binary/fixtures/discovery.S)
target_link_options(swprof_discovery_fixture PRIVATE -nostdlib -static -no-pie)
set_target_properties(swprof_discovery_fixture PROPERTIES LINKER_LANGUAGE C)
add_custom_command(TARGET swprof_discovery_fixture POST_BUILD
  COMMAND ${CMAKE_STRIP} --strip-all $<TARGET_FILE:swprof_discovery_fixture>
          -o $<TARGET_FILE:swprof_discovery_fixture>.stripped
  BYPRODUCTS swprof_discovery_fixture.stripped
  VERBATIM)
list(APPEND SWPROF_TEST_FIXTURES swprof_discovery_fixture)
target_compile_definitions(swprof_test_environment INTERFACE
  SWPROF_DISCOVERY_FIXTURE="$<TARGET_FILE:swprof_discovery_fixture>")
