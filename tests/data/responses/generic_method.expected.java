public static <T extends Comparable<? super T>> List<T> sorted(final Collection<T> items) {
    final List<T> list = new ArrayList<>(items);
    Collections.sort(list);
    return list;
}
