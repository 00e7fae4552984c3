# Links with lld (Debian's lld) where it is installed: the sanitizer build links eleven programs of
# up to 200 MB (the server, the test and bench programs) and the fuzz build 38 targets, and GNU ld
# takes about three times lld's CPU for each (the ASan server: 6.3 s against 1.9 s).
# MEDIAGEN_LLD=OFF keeps the default linker.
option(MEDIAGEN_LLD "Link with lld when it is installed" ON)
if(MEDIAGEN_LLD)
  find_program(MEDIAGEN_LD_LLD ld.lld)
  if(MEDIAGEN_LD_LLD)
    add_link_options(-fuse-ld=lld)
  endif()
endif()
