/* Embeds the plugin's fat binary (DEMO_FATBIN, a path) in the section nvcc
   uses for it, .nv_fatbin, so that cuobjdump, cuwheel and the driver's
   tools find it where they look. The host code passes demo_fatbin to
   cudaLibraryLoadData. 8-byte alignment: the fat binary header's. */
    .section .nv_fatbin, "a"
    .balign 8
    .globl demo_fatbin
    .hidden demo_fatbin
    .type demo_fatbin, @object
demo_fatbin:
    .incbin DEMO_FATBIN
demo_fatbin_end:
    .size demo_fatbin, demo_fatbin_end - demo_fatbin

/* The record nvcc writes beside each container (__fatBinC_Wrapper_t: magic
   0x466243b1, version 1, the container's address, no file-name list), so
   that tools walking .nvFatBinSegment (cuobjdump, cuwheel) find the
   container as they find nvcc's. Nothing registers it: the host code loads
   the container with cudaLibraryLoadData instead. R (SHF_GNU_RETAIN): nothing
   refers to the record, and a linker collecting unused sections (zig's
   lld does) must keep it. */
    .section .nvFatBinSegment, "awR"
    .balign 8
demo_fatbin_wrapper:
    .long 0x466243b1
    .long 1
    .quad demo_fatbin
    .quad 0
    .size demo_fatbin_wrapper, 24

    .section .note.GNU-stack, "", @progbits
