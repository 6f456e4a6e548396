# Unity builds: hamgan_unity_build(TARGET [SOURCE_COMPILED_ALONE...]).
option(HAMGAN_UNITY "Compile each target's sources in batches (a unity build): a fresh build in a third of the time" ON)

# Most of a translation unit's time here goes to LibTorch's headers (about 7 s each even precompiled, for
# the templates their inline functions instantiate), so a batch of 8 sources costs little more than one.
# A source that defines a macro before an include (configuring a header) compiles alone, as do the
# sources passed after the target name and generated ones. OFF gives one object per source, for the shortest edit-rebuild loop.
function(hamgan_unity_build target)
  if(NOT HAMGAN_UNITY)
    return()
  endif()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  get_target_property(sources ${target} SOURCES)
  foreach(src ${sources} ${ARGN})
    if(src IN_LIST ARGN OR NOT EXISTS ${src})
      set(alone ON)
    else()
      # Alone when a #define comes before an #include.
      file(STRINGS ${src} directives REGEX "^#(define|include)")
      list(JOIN directives "\n" text)
      string(FIND "${text}" "#define" first_define)
      string(FIND "${text}" "#include" last_include REVERSE)
      if(first_define GREATER_EQUAL 0 AND first_define LESS last_include)
        set(alone ON)
      else()
        set(alone OFF)
      endif()
    endif()
    if(alone)
      set_source_files_properties(${src} TARGET_DIRECTORY ${target} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
    endif()
  endforeach()
endfunction()
