public static <T extends Comparable<? super T>> List<T> sorted(final Collection<T> items) {
        final List<T> list = new ArrayList<T>(items);
        return list;
    }
