/* Embeds the cubin made by the device compiler (path in CUBIN_PATH) as the
   read-only symbols roundtrip_cubin / roundtrip_cubin_end. */
        .section .rodata
        .balign 16
        .globl roundtrip_cubin
        .type roundtrip_cubin, @object
roundtrip_cubin:
        .incbin CUBIN_PATH
        .globl roundtrip_cubin_end
roundtrip_cubin_end:
        .byte 0
        .section .note.GNU-stack,"",@progbits
