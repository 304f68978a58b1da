/*
 * nl2fix's operating-system wall: a JVMTI agent (-agentpath:) loaded into every JVM that runs or
 * compiles candidate code, before any Java code runs in it.
 *
 * A candidate's Java code can name any file, including its own JVM's /proc/self/mem, pagemap,
 * environ and fd/N, with a path put together at run time that no class-file check sees. With
 * memory open for reading and writing it reads the runner's per-job key and rewrites the runner's
 * report. So:
 *
 * - prctl(PR_SET_DUMPABLE, 0): the kernel gives the process's /proc entries to root (of the
 *   user namespace the JVM was started in; the global root when that namespace maps none), so a
 *   job uid that is not root, without capabilities, fails the permission check on mem (0600),
 *   pagemap, environ, auxv and the fd folder (0500), and ptrace_may_access refuses other
 *   processes of the same uid (a child the job starts) the JVM's memory;
 * - PR_SET_NO_NEW_PRIVS, then a seccomp filter: EPERM for ptrace, process_vm_readv/writev, kcmp,
 *   pidfd_getfd and perf_event_open (reaching another process's memory, descriptors or stack), for
 *   personality() other than a query, and for prctl(PR_SET_DUMPABLE) (which would undo the first
 *   step); inherited by every thread (TSYNC) and every process the JVM starts. Syscalls of another
 *   ABI (i386's int 0x80, x32) are all refused: the JVM makes none.
 *
 * Whether it held is checked, not assumed: the runner tries to open its own memory before it takes
 * a job and reports the result (MemoryWall.java); the harness refuses a confined JVM that could.
 * Built from this source by the system's C compiler (defects4j_adapter/jvm/os_wall.py); needs no
 * JDK header: Agent_OnLoad's signature is all of JVMTI it uses.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define WALL_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define WALL_ARCH AUDIT_ARCH_AARCH64
#else
#error "nl2fix_wall: only x86_64 and aarch64 are supported"
#endif

#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438 /* the same number on x86_64 and aarch64 (unified table since 5.x) */
#endif
#define X32_SYSCALL_BIT 0x40000000

#define DENY BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))
#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
/* the low 32 bits of argument 0 (little-endian on both architectures) */
#define LOAD_ARG0 BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]))
#define DENY_NR(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), DENY

static struct sock_filter FILTER[] = {
    LOAD(arch),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, WALL_ARCH, 1, 0),
    DENY,
    LOAD(nr),
#if defined(__x86_64__)
    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, X32_SYSCALL_BIT, 0, 1),
    DENY,
#endif
    DENY_NR(__NR_ptrace),
    DENY_NR(__NR_process_vm_readv),
    DENY_NR(__NR_process_vm_writev),
    DENY_NR(__NR_kcmp),
    DENY_NR(__NR_pidfd_getfd),
    DENY_NR(__NR_perf_event_open),
    /* personality(0xffffffff) only asks; any other value changes how a program is loaded */
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_personality, 0, 4),
    LOAD_ARG0,
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffff, 1, 0),
    DENY,
    ALLOW,
    /* nr is still loaded here: the personality branch above ends in returns */
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_prctl, 0, 3),
    LOAD_ARG0,
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_DUMPABLE, 0, 1),
    DENY,
    ALLOW,
};

static int fail(const char *what) {
    fprintf(stderr, "nl2fix_wall: %s failed (errno %d): the JVM does not start unconfined\n", what, errno);
    return 1;
}

__attribute__((visibility("default"))) int Agent_OnLoad(void *vm, char *options, void *reserved) {
    (void)vm;
    (void)options;
    (void)reserved;
    struct sock_fprog prog = {(unsigned short)(sizeof(FILTER) / sizeof(FILTER[0])), FILTER};
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
        return fail("prctl(PR_SET_DUMPABLE, 0)");
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        return fail("prctl(PR_SET_NO_NEW_PRIVS, 1)");
    }
    if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0) {
        return fail("seccomp(SECCOMP_SET_MODE_FILTER, TSYNC)");
    }
    return 0;
}
