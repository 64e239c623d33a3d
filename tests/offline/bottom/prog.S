// A program without libc that spins in _start itself: the sampled frame is
// the outermost one, recognized by the bottom-of-stack stepper from the ELF
// entry point and the _start symbol. No unwind tables. Recipe: README.md.

        .text
        .globl _start
        .type _start, @function
_start:
        xor %ebp, %ebp
        mov $600000000, %rcx
1:      dec %rcx
        jnz 1b
        mov $60, %eax
        xor %edi, %edi
        syscall
        hlt
        .size _start, . - _start
        .section .note.GNU-stack, "", @progbits
