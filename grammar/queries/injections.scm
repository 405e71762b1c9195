; Comments may hold TODO/FIXME notes (the `comment` grammar).
((comment) @injection.content
  (#set! injection.language "comment"))

; `spirv_asm { ... }` bodies are SPIR-V assembly, for which no grammar is
; in common use; they stay plain.
