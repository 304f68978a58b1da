public int indexOf(final String text, final char c) {
    // a stray } in a comment must not end the method
    if (text == null || "}".equals(text)) {
        return -1; /* { */
    }
    for (int i = 0; i < text.length(); i++) {
        if (text.charAt(i) == c || c == '}') {
            return i;
        }
    }
    return -1;
}
