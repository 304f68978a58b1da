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
 *
 * And the limits' wall: nl2fix's JVM has a heap of --memory and its sandbox a process limit, where
 * Defects4J's JVM has the machine's defaults, so a candidate that allocates (or starts threads)
 * until an OutOfMemoryError and catches it learns which JVM runs it and can be the fix only there.
 * JVMTI's ResourceExhausted event fires whenever the JVM throws such an error (Java heap, array
 * size, metaspace, native threads), caught or not; the agent keeps a mark of it, which the runner
 * takes after every test (Exhaustion.java): a test during which the JVM ran out of anything is no
 * pass.
 *
 * And the list of loaded classes (JVMTI's GetLoadedClasses), for the runner's clearing of the JDK's
 * caches of a caller class after a job (CallerCaches.java).
 *
 * Built from this source by the system's C compiler with the test JDK's jvmti.h
 * (defects4j_adapter/jvm/os_wall.py).
 */
#include <errno.h>
#include <jvmti.h>
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

/* JVMTI_RESOURCE_EXHAUSTED_* flags seen since the runner last took them (0: none) */
static volatile jint exhausted;

static void JNICALL on_exhausted(jvmtiEnv *jvmti, JNIEnv *jni, jint flags, const void *reserved,
                                 const char *description) {
    (void)jvmti;
    (void)jni;
    (void)reserved;
    (void)description;
    /* a flag no kind sets, so that "ran out" is never 0 */
    __atomic_or_fetch(&exhausted, flags | 0x40000000, __ATOMIC_SEQ_CST);
}

/* nl2fix.runner.Exhaustion#take0(): the marks since the last call, cleared. The JVM looks up a
 * native method in its agents' libraries too; only the runner's class declares it. */
JNIEXPORT jint JNICALL Java_nl2fix_runner_Exhaustion_take0(JNIEnv *env, jclass cls) {
    (void)env;
    (void)cls;
    return __atomic_exchange_n(&exhausted, 0, __ATOMIC_SEQ_CST);
}

/* The agent's JVMTI environment, for CallerCaches#loaded0. */
static jvmtiEnv *agent_jvmti = NULL;

/* nl2fix.runner.CallerCaches#loaded0(): every class the JVM has loaded, or null when JVMTI cannot say. */
JNIEXPORT jobjectArray JNICALL Java_nl2fix_runner_CallerCaches_loaded0(JNIEnv *env, jclass cls) {
    jint count = 0;
    jclass *classes = NULL;
    jobjectArray all = NULL;
    (void)cls;
    if (agent_jvmti == NULL || (*agent_jvmti)->GetLoadedClasses(agent_jvmti, &count, &classes) != JVMTI_ERROR_NONE) {
        return NULL;
    }
    jclass kind = (*env)->FindClass(env, "java/lang/Class");
    if (kind != NULL) {
        all = (*env)->NewObjectArray(env, count, kind, NULL);
    }
    for (jint i = 0; i < count; i++) {
        if (all != NULL) {
            (*env)->SetObjectArrayElement(env, all, i, classes[i]);
        }
        (*env)->DeleteLocalRef(env, classes[i]);
    }
    (*agent_jvmti)->Deallocate(agent_jvmti, (unsigned char *)classes);
    return all;
}

static int fail(const char *what) {
    fprintf(stderr, "nl2fix_wall: %s failed (errno %d): the JVM does not start unconfined\n", what, errno);
    return 1;
}

static int watch_exhaustion(JavaVM *vm) {
    jvmtiEnv *jvmti = NULL;
    jvmtiCapabilities wanted = {0};
    jvmtiEventCallbacks callbacks = {0};
    if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK || jvmti == NULL) {
        return fail("JVMTI GetEnv");
    }
    wanted.can_generate_resource_exhaustion_heap_events = 1;
    wanted.can_generate_resource_exhaustion_threads_events = 1;
    callbacks.ResourceExhausted = on_exhausted;
    if ((*jvmti)->AddCapabilities(jvmti, &wanted) != JVMTI_ERROR_NONE ||
        (*jvmti)->SetEventCallbacks(jvmti, &callbacks, (jint)sizeof(callbacks)) != JVMTI_ERROR_NONE ||
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_RESOURCE_EXHAUSTED, NULL) !=
            JVMTI_ERROR_NONE) {
        errno = 0;
        return fail("JVMTI's ResourceExhausted event");
    }
    agent_jvmti = jvmti;
    return 0;
}

/* The operating system's wall, Agent_OnLoad's first step; exported so that a test program can call
 * it without a JVM (test_os_wall.py). */
JNIEXPORT int nl2fix_wall_close(void) {
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

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
    (void)options;
    (void)reserved;
    return nl2fix_wall_close() != 0 ? 1 : watch_exhaustion(vm);
}
