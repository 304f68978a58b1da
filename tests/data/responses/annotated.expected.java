@Override
public int indexOf(final String text, final char c) {
    if (text == null) {
        return -1;
    }
    return text.indexOf(c);
}
