# `cmake --install BUILD --prefix P`: P/bin/hamgan, which finds LibTorch and the other libraries it was
# linked against outside the build tree (the Python environment's torch) through its install RUNPATH, so
# it runs after the build tree is deleted; the experiment files go to P/share/hamgan/experiments.
include(GNUInstallDirs)
# LibTorch's folder is named itself: CMake leaves link folders inside the source tree (a .venv/ there) out.
get_filename_component(HAMGAN_TORCH_LIB_DIR "${TORCH_LIBRARY}" DIRECTORY)
set_target_properties(hamgan PROPERTIES INSTALL_RPATH "${HAMGAN_TORCH_LIB_DIR}" INSTALL_RPATH_USE_LINK_PATH TRUE)
install(TARGETS hamgan RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY experiments/ DESTINATION ${CMAKE_INSTALL_DATADIR}/hamgan/experiments
        FILES_MATCHING PATTERN "*.toml")
