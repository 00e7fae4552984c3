# Links with lld (Debian's lld) where it is installed: the sanitizer build links a dozen programs
# of 200+ MB each (the server, the test and bench programs, the fuzz targets), and GNU ld spends
# most of a link reading and writing them on one core. MEDIAGEN_LLD=OFF keeps the default linker.
option(MEDIAGEN_LLD "Link with lld when it is installed" ON)
if(MEDIAGEN_LLD)
  find_program(MEDIAGEN_LD_LLD ld.lld)
  if(MEDIAGEN_LD_LLD)
    add_link_options(-fuse-ld=lld)
  endif()
endif()
