/* liborc's code allocator, made safe for libvips' threads.
 *
 * libvips before 8.15 compiles liborc programs for its vector (SIMD) paths — reducev, convi, morph —
 * when such an operation is built, and frees them when the operation goes. With the operation cache
 * off (medley_start.c) and several items at once, that is every resize on every item thread.
 * liborc before 0.4.34 does not keep its code allocator's chunk list consistent across threads:
 * orc_code_allocate_codemem picks a free chunk under the global lock but splits it and marks it used
 * after letting go, and orc_code_chunk_free merges chunks without taking it at all (fixed by orc
 * commit e48fa54, "orccodemem: Fix for potential race in codemem alloc/free"; Debian 12 ships 0.4.33).
 * Two threads building and dropping resizes corrupt the list, then the heap: two threads doing 1,000
 * vertical reductions each crash in about one run in two.
 *
 * libvips reaches that allocator through two liborc functions only: orc_program_compile and
 * orc_program_free. Medley defines both here. The dynamic linker binds libvips' calls to the
 * executable's definitions before liborc's (the link exports them because libvips refers to them),
 * and these call liborc's own, found with dlsym(RTLD_NEXT), one at a time under one lock. Running
 * the compiled programs is not serialised: only building and freeing them is, a few times per image.
 * With a liborc that locks for itself the extra lock costs nothing that shows; with none loaded
 * (libvips 8.15 and later use highway) nothing calls these. */
#include "medley_vips.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>

/* liborc's own types are not needed: both are passed through. OrcCompileResult is an int-sized
 * enum whose values from 0x100 up are failures (ORC_COMPILE_RESULT_IS_SUCCESSFUL). */
typedef struct MedleyOrcProgram MedleyOrcProgram;
enum { medley_orc_compile_failed = 0x100 };

int orc_program_compile(MedleyOrcProgram *program);
void orc_program_free(MedleyOrcProgram *program);

static pthread_mutex_t orc_code_lock;
static pthread_once_t orc_found = PTHREAD_ONCE_INIT;
static int (*liborc_compile)(MedleyOrcProgram *);
static void (*liborc_free)(MedleyOrcProgram *);
static atomic_long serialised_calls;

static void find_liborc(void) {
    /* Recursive: Debian's liborc calls its own functions directly, but a build that called its
     * exported orc_program_free from inside orc_program_compile would reach this lock again. */
    pthread_mutexattr_t kind;
    pthread_mutexattr_init(&kind);
    pthread_mutexattr_settype(&kind, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&orc_code_lock, &kind);
    pthread_mutexattr_destroy(&kind);
    liborc_compile = (int (*)(MedleyOrcProgram *))dlsym(RTLD_NEXT, "orc_program_compile");
    liborc_free = (void (*)(MedleyOrcProgram *))dlsym(RTLD_NEXT, "orc_program_free");
}

int orc_program_compile(MedleyOrcProgram *program) {
    pthread_once(&orc_found, find_liborc);
    /* No liborc behind this definition (libvips calls it only when it links liborc, so this is not
     * expected): report what liborc reports for a program it cannot compile. */
    if (!liborc_compile) return medley_orc_compile_failed;
    pthread_mutex_lock(&orc_code_lock);
    int result = liborc_compile(program);
    pthread_mutex_unlock(&orc_code_lock);
    atomic_fetch_add(&serialised_calls, 1);
    return result;
}

void orc_program_free(MedleyOrcProgram *program) {
    pthread_once(&orc_found, find_liborc);
    if (!liborc_free) return;
    pthread_mutex_lock(&orc_code_lock);
    liborc_free(program);
    pthread_mutex_unlock(&orc_code_lock);
    atomic_fetch_add(&serialised_calls, 1);
}

long medley_orc_serialised_calls(void) { return atomic_load(&serialised_calls); }
