public int indexOf(final String text, final char c) {
        if (text == null) {
            return -1;
        }
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == c) {
                return i;
            }
        }
        return -1;
    }
