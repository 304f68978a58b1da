package nl2fix.runner;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

/** The members of a class file that hand out {@code sun.misc.Unsafe} or the JDK's own: read from the
 * constant pool and the field and method tables, without loading anything ({@link JobClasses}). */
final class ClassFile {
    private ClassFile() {
    }

    private static final String[] UNSAFE = {"Lsun/misc/Unsafe;", "Ljdk/internal/misc/Unsafe;"};
    private static final byte[] MARK = "misc/Unsafe;".getBytes(StandardCharsets.US_ASCII);

    /** Fields of an {@code Unsafe} type and methods that return one, by name. */
    static final class Members {
        final Set<String> fields = new HashSet<>();
        final Set<String> methods = new HashSet<>();
    }

    /** The members of {@code bytes}' class that hand out an {@code Unsafe}, or null when none does. */
    static Members handingOutUnsafe(byte[] bytes) throws IOException {
        if (!contains(bytes, MARK)) {
            return null;
        }
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
        in.skipBytes(8); // magic, minor and major version
        int count = in.readUnsignedShort();
        String[] utf8 = new String[count];
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1:
                    utf8[i] = in.readUTF(); // the class file's modified UTF-8 is DataInput's
                    break;
                case 5: case 6: // long, double: two entries
                    in.skipBytes(8);
                    i++;
                    break;
                case 3: case 4: case 9: case 10: case 11: case 12: case 17: case 18:
                    in.skipBytes(4);
                    break;
                case 7: case 8: case 16: case 19: case 20:
                    in.skipBytes(2);
                    break;
                case 15:
                    in.skipBytes(3);
                    break;
                default:
                    throw new IOException("constant pool tag " + tag);
            }
        }
        in.skipBytes(6); // access, this, super
        in.skipBytes(2 * in.readUnsignedShort());
        Members found = new Members();
        for (Set<String> into : java.util.List.of(found.fields, found.methods)) {
            int members = in.readUnsignedShort();
            for (int m = 0; m < members; m++) {
                in.skipBytes(2);
                String name = utf8[in.readUnsignedShort()];
                String descriptor = utf8[in.readUnsignedShort()];
                for (String type : UNSAFE) {
                    if (descriptor != null && (into == found.fields ? descriptor.equals(type) : descriptor.endsWith(")" + type))) {
                        into.add(name);
                    }
                }
                int attributes = in.readUnsignedShort();
                for (int a = 0; a < attributes; a++) {
                    in.skipBytes(2);
                    in.skipBytes(in.readInt());
                }
            }
        }
        return found.fields.isEmpty() && found.methods.isEmpty() ? null : found;
    }

    private static boolean contains(byte[] bytes, byte[] mark) {
        outer:
        for (int i = 0; i + mark.length <= bytes.length; i++) {
            for (int j = 0; j < mark.length; j++) {
                if (bytes[i + j] != mark[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
