; Hand-written SIMD-style functions in the manner of x86inc.asm (x264,
; FFmpeg, dav1d): no CFI, no frame pointer, each aligned to 16 like
; cglobal's, called from C that has CFI (known_asm.c) directly and through
; a table of pointers the C code fills with `lea`. One function per
; prologue shape the binary-analysis stepper must follow; rdi is the
; iteration count of each one's loop. Symbols are hidden (local once
; linked), so the stripped twin has none, as Debian's libx264 has none.

default rel

%macro cglobal 1
  align 16
  global %1:function hidden (%1 %+ .end - %1)
  %1:
%endmacro

section .text

; A leaf that never touches rsp (reached through the pointer table).
cglobal asm_leaf
  mov rax, rdi
.loop:
  pxor xmm0, xmm1
  dec rax
  jnz .loop
  ret
.end:

; An internal helper entered by a direct call from asm_push_sub.
cglobal asm_helper
  mov rax, rdi
.loop:
  paddd xmm0, xmm1
  dec rax
  jnz .loop
  ret
.end:

; push/sub prologue; calls a helper, then works itself.
cglobal asm_push_sub
  push rbx
  push r12
  sub rsp, 24
  mov rbx, rdi
  mov [rsp], rbx
  call asm_helper
  mov rax, rbx
.loop:
  movdqu [rsp + 8], xmm0
  dec rax
  jnz .loop
  add rsp, 24
  pop r12
  pop rbx
  ret
.end:

; Realigned stack, the old rsp kept in a register (x86inc's PROLOGUE with a
; positive stack size and required alignment 32).
cglobal asm_align_reg
  push r12
  mov r11, rsp
  and rsp, -32
  sub rsp, 64
  mov rax, rdi
.loop:
  movdqa [rsp + 32], xmm0
  dec rax
  jnz .loop
  mov rsp, r11
  pop r12
  ret
.end:

; A helper below a realigned frame.
cglobal asm_deep_helper
  push rbp
  mov rax, rdi
.loop:
  psubd xmm0, xmm1
  dec rax
  jnz .loop
  pop rbp
  ret
.end:

; Realigned stack, the old rsp stored above the new one (x86inc's PROLOGUE
; with a negative stack size); calls a helper, then works itself.
cglobal asm_align_stack
  push rbx
  mov rax, rsp
  and rsp, -64
  sub rsp, 96
  mov [rsp + 88], rax
  mov rbx, rdi
  call asm_deep_helper
  mov rax, rbx
.loop:
  movdqa [rsp + 16], xmm0
  dec rax
  jnz .loop
  mov rsp, [rsp + 88]
  pop rbx
  ret
.end:

; Sets up a frame, takes it down and tail-jumps to asm_tail_target.
cglobal asm_tail
  push rbx
  sub rsp, 16
  mov rbx, rdi
  mov [rsp], rbx
  mov rdi, rbx
  add rsp, 16
  pop rbx
  jmp asm_tail_target
.end:

cglobal asm_tail_target
  mov rax, rdi
.loop:
  por xmm0, xmm1
  dec rax
  jnz .loop
  ret
.end:

section .note.GNU-stack noalloc noexec nowrite progbits
