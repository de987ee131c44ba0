package dev.mooncake.jcache.history;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/** A history as a text file: one {@link Operation#toLine()} per line; '#' starts a comment. */
public final class HistoryFile {
  private HistoryFile() {}

  public static void write(Path file, Collection<Operation> history) {
    List<String> lines = new ArrayList<>(history.size());
    for (Operation op : history) {
      lines.add(op.toLine());
    }
    try {
      Files.write(file, lines, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static List<Operation> read(Path file) {
    List<Operation> history = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        if (!line.isBlank() && !line.startsWith("#")) {
          history.add(Operation.parse(line));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return history;
  }
}
