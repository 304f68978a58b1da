package nl2fix.runner;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Puts a call of a static method of the runner at the very start of a method's bytecode: {@link
 * MethodReach#hit()} for the recording job on the fixed or buggy version (trusted code; a candidate's
 * classes are never instrumented), {@link BehaviourProbe#entered} in a probe source's methods ({@link
 * #receivers}), and {@link Thrown#reported} in JUnit's own reporting of a thrown object ({@link JUnitHook}). At the bytecode's start, not the source's, so a constructor records
 * before its {@code this(...)} or {@code super(...)} arguments are evaluated: a test that calls it
 * is seen even when they throw.
 *
 * <p>The call and a {@code nop} (or the load of its one argument) make 4 bytes, so every later
 * instruction moves by 4 (the receiver, the arguments in an {@code Object[]} and the method's number
 * for {@link BehaviourProbe#entered}: as many bytes as they take, padded with {@code nop} to a multiple
 * of 4): relative jumps stay as they are and {@code tableswitch}/{@code lookupswitch} keep their 4-byte
 * alignment; only the absolute offsets move (exception table, line and local variable tables, the first
 * stack map frame). A method whose Code attribute holds anything else with offsets (type
 * annotations on its code) is left alone and counted as not instrumented: the recording is then
 * incomplete and the harness keeps every test.
 */
final class CallInserter {
    private CallInserter() {
    }

    /** How many methods {@link #instrument} put the call in, and how many it could not. */
    static final class Result {
        final Map<String, byte[]> classes;
        final int instrumented;
        final int refused;
        /** {@link #receivers}: the methods that call {@link BehaviourProbe#entered}, by the number each passes
         * it, as {@code class name \t method name \t descriptor}. */
        final List<String> methods;

        Result(Map<String, byte[]> classes, int instrumented, int refused, List<String> methods) {
            this.classes = classes;
            this.instrumented = instrumented;
            this.refused = refused;
            this.methods = Collections.unmodifiableList(methods);
        }
    }

    /** A call of {@code owner.name(descriptor)}, static, with {@code load} (an instruction of one byte
     * that loads its argument, or {@code nop} for none) before or after it as the call needs; or, {@code
     * arguments}, given the receiver, the method's arguments (primitives boxed) and its number in {@link
     * Result#methods}. */
    static final class Call {
        final String owner;
        final String name;
        final String descriptor;
        final int load;
        final boolean arguments;

        Call(String owner, String name, String descriptor, int load) {
            this(owner, name, descriptor, load, false);
        }

        private Call(String owner, String name, String descriptor, int load, boolean arguments) {
            this.owner = owner;
            this.name = name;
            this.descriptor = descriptor;
            this.load = load;
            this.arguments = arguments;
        }
    }

    static final int NOP = 0x00;
    static final int ALOAD_0 = 0x2A;
    static final int ALOAD_1 = 0x2B;
    private static final Call REACHED = new Call("nl2fix/runner/MethodReach", "hit", "()V", NOP);
    private static final Call ENTERED = new Call(
            "nl2fix/runner/BehaviourProbe", "entered", "(Ljava/lang/Object;[Ljava/lang/Object;I)V", ALOAD_0, true);
    /** What {@link #receivers} puts first in a constructor instead: its {@code this} is no object yet there. */
    private static final String BUILT = "built";
    private static final String BUILT_DESCRIPTOR = "([Ljava/lang/Object;I)V";
    /** The primitive descriptors, and the classes that box them ({@code valueOf}). */
    private static final String PRIMITIVES = "ZBCSIJFD";
    private static final String[] BOXES = {"java/lang/Boolean", "java/lang/Byte", "java/lang/Character",
        "java/lang/Short", "java/lang/Integer", "java/lang/Long", "java/lang/Float", "java/lang/Double"};
    /** Access flags of a method {@link #receivers} leaves alone: private, static, bridge, native, abstract, synthetic. */
    private static final int NOT_ENTERED = 0x0002 | 0x0008 | 0x0040 | 0x0100 | 0x0400 | 0x1000;

    /** Every method named {@code method} in {@code classes}, and the constructors of the classes
     * whose simple name is {@code method} (a constructor's name in source), instrumented. */
    static Result instrument(Map<String, byte[]> classes, String method) throws IOException {
        Map<String, byte[]> out = new HashMap<>();
        int instrumented = 0;
        int refused = 0;
        for (Map.Entry<String, byte[]> e : classes.entrySet()) {
            String name = e.getKey();
            String simple = name.substring(Math.max(name.lastIndexOf('.'), name.lastIndexOf('$')) + 1);
            CallInserter.Rewriter r = new CallInserter.Rewriter(e.getValue(), REACHED, method, null, simple.equals(method));
            out.put(name, r.rewrite());
            instrumented += r.instrumented;
            refused += r.refused;
        }
        return new Result(out, instrumented, refused, List.of());
    }

    /** The probe source's classes with {@link BehaviourProbe#entered} given the receiver, the arguments and
     * the method's number first in each method of the class holding the reference ({@code m$nl2fix$ref}) that
     * a caller outside the class may call on an object: not private, static, abstract, native, synthetic or a
     * bridge, the reference or its wrapper; and {@link BehaviourProbe#built} given the arguments and the number
     * first in each of its constructors that is not private or synthetic (its {@code this} is not an object yet
     * at the start). Trusted code only: the candidate's classes are never instrumented. */
    static Result receivers(Map<String, byte[]> classes) throws IOException {
        Map<String, byte[]> out = new HashMap<>();
        int instrumented = 0;
        int refused = 0;
        List<String> methods = new ArrayList<>();
        for (Map.Entry<String, byte[]> e : classes.entrySet()) {
            CallInserter.Rewriter r = new CallInserter.Rewriter(e.getValue(), ENTERED, null, null, false);
            r.methods = methods;
            out.put(e.getKey(), r.rewrite());
            instrumented += r.instrumented;
            refused += r.refused;
        }
        return new Result(out, instrumented, refused, methods);
    }

    /** {@code data} with {@code call} first in its method {@code method} of that descriptor; null when
     * the class has no such method or its code holds offsets this does not move. */
    static byte[] hook(byte[] data, Call call, String method, String descriptor) throws IOException {
        Rewriter r = new Rewriter(data, call, method, descriptor, false);
        byte[] out = r.rewrite();
        return r.instrumented == 1 && r.refused == 0 ? out : null;
    }

    private static final class Rewriter {
        private final ByteBuffer in;
        private final Call call;
        /** The method's name; null: every method {@link #receivers} instruments, in the class holding the
         * reference only (none elsewhere). */
        private final String method;
        /** The names of the reference and its wrapper, when the class declares the reference ({@code method} null). */
        private final java.util.Set<String> probed = new java.util.HashSet<>();
        /** Only the method of this descriptor; null for every method of that name. */
        private final String descriptor;
        private final boolean constructors;
        private final Map<Integer, String> utf8 = new HashMap<>();
        /** Class entries: their name's Utf8 index. */
        private final Map<Integer, Integer> classNames = new HashMap<>();
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final DataOutputStream out = new DataOutputStream(bytes);
        /** The constant pool entries the call needs, appended after the class's own; the next free index. */
        private final ByteArrayOutputStream added = new ByteArrayOutputStream();
        private final DataOutputStream pool = new DataOutputStream(added);
        private int next;
        private int methodRef;
        /** {@link #BUILT}, for a constructor, where the call has {@code arguments}. */
        private int builtRef;
        private int objectClass;
        private final int[] boxes = new int[PRIMITIVES.length()];
        private String className;
        /** {@link Result#methods}, where a call with {@code arguments} numbers the methods it goes into. */
        List<String> methods;
        int instrumented;
        int refused;

        Rewriter(byte[] data, Call call, String method, String descriptor, boolean constructors) {
            this.in = ByteBuffer.wrap(data);
            this.call = call;
            this.method = method;
            this.descriptor = descriptor;
            this.constructors = constructors;
        }

        byte[] rewrite() throws IOException {
            out.writeInt(in.getInt());
            out.writeInt(in.getInt()); // minor, major
            int count = in.getShort() & 0xFFFF;
            int start = in.position();
            for (int i = 1; i < count; i++) {
                int tag = in.get() & 0xFF;
                switch (tag) {
                    case 1: {
                        int len = in.getShort() & 0xFFFF;
                        byte[] b = new byte[len];
                        in.get(b);
                        utf8.put(i, new String(b, StandardCharsets.UTF_8));
                        break;
                    }
                    case 3: case 4: case 9: case 10: case 11: case 12: case 17: case 18: in.position(in.position() + 4); break;
                    case 5: case 6: in.position(in.position() + 8); i++; break;
                    case 7: classNames.put(i, in.getShort() & 0xFFFF); break;
                    case 8: case 16: case 19: case 20: in.position(in.position() + 2); break;
                    case 15: in.position(in.position() + 3); break;
                    default: throw new IOException("unknown constant pool tag " + tag);
                }
            }
            int end = in.position();
            next = count;
            methodRef = methodRef(call.owner, call.name, call.descriptor);
            if (call.arguments) {
                builtRef = methodRef(call.owner, BUILT, BUILT_DESCRIPTOR);
                objectClass = classRef("java/lang/Object");
                for (int b = 0; b < boxes.length; b++) {
                    boxes[b] = methodRef(BOXES[b], "valueOf", "(" + PRIMITIVES.charAt(b) + ")L" + BOXES[b] + ";");
                }
            }
            if (next > 0xFFFF) {
                throw new IOException("no room in the constant pool for the call");
            }
            pool.flush();
            out.writeShort(next);
            out.write(in.array(), start, end - start);
            out.write(added.toByteArray());
            className = utf8.get(classNames.get(in.duplicate().position(in.position() + 2).getShort() & 0xFFFF));
            if (method == null) {
                probed(in.duplicate());
            }
            copy(6); // access, this, super
            copy(2 * u2());
            members(false);
            members(true);
            copyAttributes();
            out.flush();
            return bytes.toByteArray();
        }

        /** The reference's name and its wrapper's, read ahead from {@code b} (at the class's access flags)
         * when the class declares the reference. */
        private void probed(ByteBuffer b) {
            b.position(b.position() + 6);
            int interfaces = b.getShort() & 0xFFFF;
            b.position(b.position() + 2 * interfaces);
            for (int kind = 0; kind < 2; kind++) {
                int n = b.getShort() & 0xFFFF;
                for (int i = 0; i < n; i++) {
                    b.position(b.position() + 2);
                    String name = utf8.get(b.getShort() & 0xFFFF);
                    b.position(b.position() + 2);
                    if (kind == 1 && name != null && name.endsWith(BehaviourProbe.REFERENCE_SUFFIX)) {
                        probed.add(name);
                        probed.add(name.substring(0, name.length() - BehaviourProbe.REFERENCE_SUFFIX.length()));
                    }
                    int attributes = b.getShort() & 0xFFFF;
                    for (int a = 0; a < attributes; a++) {
                        b.position(b.position() + 2);
                        int len = b.getInt();
                        b.position(b.position() + len);
                    }
                }
            }
        }

        private boolean target(boolean methods, int access, String name, String type) {
            if (!methods) {
                return false;
            }
            if (method == null) {
                return !probed.isEmpty() && (access & NOT_ENTERED) == 0 && !"<clinit>".equals(name)
                        && !probed.contains(name);
            }
            return (method.equals(name) || constructors && "<init>".equals(name))
                    && (descriptor == null || descriptor.equals(type));
        }

        private int utf8(String s) throws IOException {
            pool.writeByte(1);
            pool.writeUTF(s);
            return next++;
        }

        private int classRef(String name) throws IOException {
            int n = utf8(name);
            pool.writeByte(7);
            pool.writeShort(n);
            return next++;
        }

        private int methodRef(String owner, String name, String descriptor) throws IOException {
            int c = classRef(owner);
            int n = utf8(name);
            int d = utf8(descriptor);
            pool.writeByte(12);
            pool.writeShort(n);
            pool.writeShort(d);
            pool.writeByte(10);
            pool.writeShort(c);
            pool.writeShort(next++);
            return next++;
        }

        private int u2() throws IOException {
            int v = in.getShort() & 0xFFFF;
            out.writeShort(v);
            return v;
        }

        private void copy(int n) throws IOException {
            out.write(in.array(), in.position(), n);
            in.position(in.position() + n);
        }

        private void copyAttributes() throws IOException {
            int n = u2();
            for (int i = 0; i < n; i++) {
                copy(2);
                int len = in.getInt();
                out.writeInt(len);
                copy(len);
            }
        }

        private void members(boolean methods) throws IOException {
            int n = u2();
            for (int i = 0; i < n; i++) {
                int access = u2();
                String name = utf8.get(u2());
                String type = utf8.get(u2());
                if (!target(methods, access, name, type)) {
                    copyAttributes();
                    continue;
                }
                int attributes = u2();
                for (int a = 0; a < attributes; a++) {
                    int nameIndex = in.getShort() & 0xFFFF;
                    int len = in.getInt();
                    byte[] body = new byte[len];
                    in.get(body);
                    byte[] code = "Code".equals(utf8.get(nameIndex)) ? withCall(body, name, type) : null;
                    if (code == null && "Code".equals(utf8.get(nameIndex))) {
                        refused++;
                    } else if (code != null) {
                        instrumented++;
                        body = code;
                    }
                    out.writeShort(nameIndex);
                    out.writeInt(body.length);
                    out.write(body);
                }
            }
        }

        /** The call's instructions (a multiple of 4 bytes) at the start of method {@code name} of {@code descriptor}
         * (an instance method's, for a call with {@code arguments}); null when they cannot be written. */
        private byte[] prefix(String name, String descriptor) throws IOException {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            DataOutputStream o = new DataOutputStream(b);
            if (!call.arguments) {
                if (call.load != NOP) {
                    o.writeByte(call.load);
                }
                o.writeByte(0xB8); // invokestatic
                o.writeShort(methodRef);
                if (call.load == NOP) {
                    o.writeByte(NOP);
                }
                o.flush();
                return b.toByteArray();
            }
            String params = descriptor.substring(1, descriptor.indexOf(')'));
            List<Character> types = new ArrayList<>();
            for (int i = 0; i < params.length(); i++) {
                char t = params.charAt(i);
                types.add(t == 'L' || t == '[' ? 'L' : t);
                while (params.charAt(i) == '[') {
                    i++;
                }
                if (params.charAt(i) == 'L') {
                    i = params.indexOf(';', i);
                }
            }
            if (methods.size() > Short.MAX_VALUE) {
                return null;
            }
            boolean constructor = "<init>".equals(name);
            if (!constructor) {
                o.writeByte(ALOAD_0);
            }
            o.writeByte(0x11); // sipush
            o.writeShort(types.size());
            o.writeByte(0xBD); // anewarray
            o.writeShort(objectClass);
            int slot = 1;
            for (int i = 0; i < types.size(); i++) {
                char t = types.get(i);
                o.writeByte(0x59); // dup
                o.writeByte(0x11);
                o.writeShort(i);
                int load = t == 'J' ? 0x16 : t == 'F' ? 0x17 : t == 'D' ? 0x18 : t == 'L' ? 0x19 : 0x15;
                if (slot > 0xFF) {
                    o.writeByte(0xC4); // wide
                    o.writeByte(load);
                    o.writeShort(slot);
                } else {
                    o.writeByte(load);
                    o.writeByte(slot);
                }
                if (t != 'L') {
                    o.writeByte(0xB8);
                    o.writeShort(boxes[PRIMITIVES.indexOf(t)]);
                }
                o.writeByte(0x53); // aastore
                slot += t == 'J' || t == 'D' ? 2 : 1;
            }
            o.writeByte(0x11);
            o.writeShort(methods.size());
            o.writeByte(0xB8);
            o.writeShort(constructor ? builtRef : methodRef);
            while (o.size() % 4 != 0) {
                o.writeByte(NOP);
            }
            o.flush();
            return b.toByteArray();
        }

        /** The Code attribute's body with the call first; null when it holds offsets this does not move. */
        private byte[] withCall(byte[] body, String name, String descriptor) throws IOException {
            byte[] first = prefix(name, descriptor);
            if (first == null) {
                return null;
            }
            int shift = first.length;
            ByteBuffer c = ByteBuffer.wrap(body);
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            DataOutputStream o = new DataOutputStream(b);
            // max_stack, max_locals: a call with an argument needs a slot of the stack; with the arguments, the
            // receiver, the array twice, an index and a long or double
            int maxStack = c.getShort() & 0xFFFF;
            o.writeShort(call.arguments ? Math.max(7, maxStack) : call.load != NOP ? Math.max(1, maxStack) : maxStack);
            o.writeShort(c.getShort());
            int length = c.getInt();
            if (length + shift > 65535) {
                return null;
            }
            o.writeInt(length + shift);
            o.write(first);
            o.write(body, c.position(), length);
            c.position(c.position() + length);
            int handlers = c.getShort() & 0xFFFF;
            o.writeShort(handlers);
            for (int i = 0; i < handlers; i++) {
                o.writeShort((c.getShort() & 0xFFFF) + shift);
                o.writeShort((c.getShort() & 0xFFFF) + shift);
                o.writeShort((c.getShort() & 0xFFFF) + shift);
                o.writeShort(c.getShort());
            }
            int attributes = c.getShort() & 0xFFFF;
            o.writeShort(attributes);
            for (int a = 0; a < attributes; a++) {
                int nameIndex = c.getShort() & 0xFFFF;
                int len = c.getInt();
                ByteBuffer attr = ByteBuffer.wrap(body, c.position(), len).slice();
                c.position(c.position() + len);
                byte[] moved = moved(utf8.get(nameIndex), attr, len, shift);
                if (moved == null) {
                    return null;
                }
                o.writeShort(nameIndex);
                o.writeInt(moved.length);
                o.write(moved);
            }
            o.flush();
            if (call.arguments) {
                methods.add(className.replace('/', '.') + "\t" + name + "\t" + descriptor);
            }
            return b.toByteArray();
        }

        private static byte[] moved(String name, ByteBuffer a, int len, int shift) throws IOException {
            byte[] copy = new byte[len];
            a.duplicate().get(copy);
            ByteBuffer w = ByteBuffer.wrap(copy);
            if ("LineNumberTable".equals(name) || "LocalVariableTable".equals(name)
                    || "LocalVariableTypeTable".equals(name)) {
                int n = w.getShort() & 0xFFFF;
                int entry = "LineNumberTable".equals(name) ? 4 : 10;
                for (int i = 0; i < n; i++) {
                    int at = 2 + i * entry;
                    w.putShort(at, (short) ((w.getShort(at) & 0xFFFF) + shift));
                }
                return copy;
            }
            if (!"StackMapTable".equals(name)) {
                return null;
            }
            // the first frame's offset is absolute (the later ones are deltas from it), and so is every
            // Uninitialized(offset) entry: the offset of the `new` whose object a frame holds unconstructed (javac
            // writes one where a conditional is an argument of a constructor: `new B(big ? "a" : "b")`)
            int n = w.getShort() & 0xFFFF;
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            DataOutputStream o = new DataOutputStream(b);
            o.writeShort(n);
            for (int i = 0; i < n; i++) {
                int type = w.get() & 0xFF;
                int add = i == 0 ? shift : 0;
                if (type < 64) {
                    if (type + add < 64) {
                        o.writeByte(type + add);
                    } else {
                        o.writeByte(251); // same_frame_extended
                        o.writeShort(type + add);
                    }
                } else if (type < 128) {
                    if (type + add < 128) {
                        o.writeByte(type + add);
                    } else {
                        o.writeByte(247); // same_locals_1_stack_item_frame_extended
                        o.writeShort(type - 64 + add);
                    }
                    types(w, o, 1, shift);
                } else if (type >= 247) {
                    o.writeByte(type);
                    o.writeShort((w.getShort() & 0xFFFF) + add);
                    if (type == 247) {
                        types(w, o, 1, shift);
                    } else if (type >= 252 && type <= 254) {
                        types(w, o, type - 251, shift);
                    } else if (type == 255) {
                        int locals = w.getShort() & 0xFFFF;
                        o.writeShort(locals);
                        types(w, o, locals, shift);
                        int stack = w.getShort() & 0xFFFF;
                        o.writeShort(stack);
                        types(w, o, stack, shift);
                    }
                } else {
                    return null; // reserved frame types
                }
            }
            if (w.hasRemaining()) {
                return null;
            }
            o.flush();
            return b.toByteArray();
        }

        /** {@code count} verification types of a stack map frame, copied, an {@code Uninitialized}'s offset moved. */
        private static void types(ByteBuffer w, DataOutputStream o, int count, int shift) throws IOException {
            for (int i = 0; i < count; i++) {
                int tag = w.get() & 0xFF;
                o.writeByte(tag);
                if (tag == 7) { // Object: its class
                    o.writeShort(w.getShort());
                } else if (tag == 8) { // Uninitialized: the offset of its `new`
                    o.writeShort((w.getShort() & 0xFFFF) + shift);
                } else if (tag > 8) {
                    throw new IOException("unknown verification type " + tag);
                }
            }
        }
    }
}
