public int indexOf(final String text, final char c) {
    if (text == null) {
        return -1;
    }
    java.util.function.IntPredicate match = new java.util.function.IntPredicate() {
        @Override
        public boolean test(int ch) {
            return ch == c;
        }
    };
    for (int i = 0; i < text.length(); i++) {
        if (match.test(text.charAt(i))) {
            return i;
        }
    }
    return -1;
}
