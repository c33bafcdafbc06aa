// The native protocol tests' JDBC client: Drill's own JDBC driver (drill-jdbc-all 1.22.0) on the
// class path, run as `java -cp drill-jdbc-all-1.22.0.jar DrillJdbcProbe.java URL STEP...` (compiled
// in memory). Each STEP runs on one connection, in order, and prints one JSON line:
//
//   query:SQL            execute it: columns, JDBC type names, Java classes, rows (getObject)
//   strings:SQL          the same, each value as getString
//   maxrows:N:SQL        Statement.setMaxRows(N), then query
//   prepare:SQL          Connection.prepareStatement(SQL): its metadata, then executeQuery
//   preparedmeta:SQL     its metadata only: label:type:class:display size:precision per column
//   count:SQL            execute it, read every row (getObject of each column): the row count,
//                        the milliseconds to the first row and to the end
//   cancel:SQL           execute it, read one row, Statement.cancel(), read on (an error or the end)
//   cancelwhen:FILE:SQL  execute it in a thread, Statement.cancel() from this one once FILE
//                        exists (the test makes it while the server computes): how it ended
//   timeout:S:SQL        Statement.setQueryTimeout(S), then query
//   tables:CAT:SCHEMA:TABLE   DatabaseMetaData.getTables (an empty part is null)
//   columns:CAT:SCHEMA:TABLE:COLUMN   DatabaseMetaData.getColumns
//   schemas:CAT:SCHEMA   DatabaseMetaData.getSchemas
//   catalogs             DatabaseMetaData.getCatalogs
//   meta                 what DatabaseMetaData says of the server (product, version, quoting, ...)
//   tool:SCHEMA:TABLE    the metadata calls a JDBC tool (DBeaver's generic driver) makes on
//                        connecting and opening a table: the connection's state, table types,
//                        catalogs, schemas, tables, columns, keys, indexes, type info, procedures,
//                        functions, UDTs: each a result set (or its error), one JSON object
//   sleep:MS             wait
//
// Values: numbers as JSON numbers (NaN / Infinity as strings), BigDecimal as its plain text
// number, byte[] as lowercase hex, any other object as its toString() (Drill's maps and lists
// print as JSON text), null as null. A failed step prints {"step", "error": message}; the program
// goes on with the next step. Exit status 0, or 3 when the connection itself failed.

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

public class DrillJdbcProbe {
  static final PrintStream OUT =
      new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);

  public static void main(String[] args) throws Exception {
    Properties props = new Properties();
    String user = System.getenv("PROBE_USER");
    if (user != null) {
      props.setProperty("user", user);
      props.setProperty("password", System.getenv().getOrDefault("PROBE_PASSWORD", ""));
    }
    Connection conn;
    try {
      conn = DriverManager.getConnection(args[0], props);
    } catch (SQLException e) {
      OUT.println("{\"step\":\"connect\",\"error\":" + q(message(e)) + "}");
      System.exit(3);
      return;
    }
    OUT.println("{\"step\":\"connect\",\"ok\":true}");
    for (int i = 1; i < args.length; i++) {
      String step = args[i];
      try {
        OUT.println(run(conn, step));
      } catch (Throwable e) {
        OUT.println("{\"step\":" + q(step) + ",\"error\":" + q(message(e)) + "}");
      }
    }
    conn.close();
    OUT.println("{\"step\":\"close\",\"ok\":true}");
  }

  static String message(Throwable e) {
    String m = e.getClass().getName() + ": " + e.getMessage();
    return m;
  }

  static String run(Connection conn, String step) throws Exception {
    String[] p = step.split(":", 2);
    String op = p[0];
    String rest = p.length > 1 ? p[1] : "";
    String head = "{\"step\":" + q(step);
    DatabaseMetaData md = conn.getMetaData();
    switch (op) {
      case "query":
      case "strings": {
        try (Statement s = conn.createStatement(); ResultSet rs = s.executeQuery(rest)) {
          return head + "," + table(rs, op.equals("strings")) + "}";
        }
      }
      case "maxrows": {
        String[] a = rest.split(":", 2);
        try (Statement s = conn.createStatement()) {
          s.setMaxRows(Integer.parseInt(a[0]));
          try (ResultSet rs = s.executeQuery(a[1])) {
            return head + "," + table(rs, false) + "}";
          }
        }
      }
      case "timeout": {
        String[] a = rest.split(":", 2);
        try (Statement s = conn.createStatement()) {
          s.setQueryTimeout(Integer.parseInt(a[0]));
          try (ResultSet rs = s.executeQuery(a[1])) {
            return head + "," + table(rs, false) + "}";
          }
        }
      }
      case "prepare": {
        try (PreparedStatement s = conn.prepareStatement(rest)) {
          ResultSetMetaData m = s.getMetaData();
          StringBuilder cols = new StringBuilder("[");
          for (int c = 1; m != null && c <= m.getColumnCount(); c++) {
            cols.append(c > 1 ? "," : "").append(q(m.getColumnLabel(c) + ":" + m.getColumnTypeName(c)));
          }
          cols.append("]");
          try (ResultSet rs = s.executeQuery()) {
            return head + ",\"prepared\":" + cols + "," + table(rs, false) + "}";
          }
        }
      }
      case "preparedmeta": {
        try (PreparedStatement s = conn.prepareStatement(rest)) {
          ResultSetMetaData m = s.getMetaData();
          StringBuilder cols = new StringBuilder("[");
          for (int c = 1; m != null && c <= m.getColumnCount(); c++) {
            cols.append(c > 1 ? "," : "").append(q(m.getColumnLabel(c) + ":" + m.getColumnTypeName(c)
                + ":" + m.getColumnClassName(c) + ":" + m.getColumnDisplaySize(c) + ":" + m.getPrecision(c)));
          }
          return head + ",\"prepared\":" + cols.append("]") + "}";
        }
      }
      case "count": {
        long start = System.nanoTime();
        long first = -1;
        long rows = 0;
        try (Statement s = conn.createStatement(); ResultSet rs = s.executeQuery(rest)) {
          int n = rs.getMetaData().getColumnCount();
          while (rs.next()) {
            if (first < 0) first = (System.nanoTime() - start) / 1_000_000;
            for (int c = 1; c <= n; c++) rs.getObject(c);
            rows++;
          }
        }
        long total = (System.nanoTime() - start) / 1_000_000;
        return head + ",\"rows\":" + rows + ",\"firstMs\":" + first + ",\"ms\":" + total + "}";
      }
      case "cancel": {
        try (Statement s = conn.createStatement(); ResultSet rs = s.executeQuery(rest)) {
          boolean first = rs.next();
          s.cancel();
          int more = 0;
          String end = "end";
          try {
            while (rs.next()) more++;
          } catch (SQLException e) {
            end = message(e);
          }
          return head + ",\"first\":" + first + ",\"more\":" + more + ",\"after\":" + q(end) + "}";
        }
      }
      case "cancelwhen": {
        String[] a = rest.split(":", 2);
        java.nio.file.Path signal = java.nio.file.Path.of(a[0]);
        try (Statement s = conn.createStatement()) {
          String[] ended = {"end"};
          Thread t = new Thread(() -> {
            try (ResultSet rs = s.executeQuery(a[1])) {
              while (rs.next()) { }
            } catch (SQLException | RuntimeException e) { // the driver's own failure, if any, named
              ended[0] = message(e);
            }
          });
          long start = System.nanoTime();
          t.start();
          while (!java.nio.file.Files.exists(signal) && t.isAlive()) Thread.sleep(50);
          s.cancel();
          t.join(120_000);
          long ms = (System.nanoTime() - start) / 1_000_000;
          return head + ",\"after\":" + q(ended[0]) + ",\"alive\":" + t.isAlive() + ",\"ms\":" + ms + "}";
        }
      }
      case "tables": {
        String[] a = parts(rest, 3);
        try (ResultSet rs = md.getTables(a[0], a[1], a[2], null)) {
          return head + "," + table(rs, false) + "}";
        }
      }
      case "columns": {
        String[] a = parts(rest, 4);
        try (ResultSet rs = md.getColumns(a[0], a[1], a[2], a[3])) {
          return head + "," + table(rs, false) + "}";
        }
      }
      case "schemas": {
        String[] a = parts(rest, 2);
        try (ResultSet rs = md.getSchemas(a[0], a[1])) {
          return head + "," + table(rs, false) + "}";
        }
      }
      case "catalogs": {
        try (ResultSet rs = md.getCatalogs()) {
          return head + "," + table(rs, false) + "}";
        }
      }
      case "meta": {
        StringBuilder b = new StringBuilder(head);
        b.append(",\"product\":").append(q(md.getDatabaseProductName()));
        b.append(",\"version\":").append(q(md.getDatabaseProductVersion()));
        b.append(",\"major\":").append(md.getDatabaseMajorVersion());
        b.append(",\"minor\":").append(md.getDatabaseMinorVersion());
        b.append(",\"driver\":").append(q(md.getDriverName() + " " + md.getDriverVersion()));
        b.append(",\"quote\":").append(q(md.getIdentifierQuoteString()));
        b.append(",\"catalogTerm\":").append(q(md.getCatalogTerm()));
        b.append(",\"schemaTerm\":").append(q(md.getSchemaTerm()));
        b.append(",\"catalogSeparator\":").append(q(md.getCatalogSeparator()));
        b.append(",\"readOnly\":").append(md.isReadOnly());
        b.append(",\"nullsAreSortedHigh\":").append(md.nullsAreSortedHigh());
        b.append(",\"storesMixedCase\":").append(md.storesMixedCaseIdentifiers());
        b.append(",\"searchEscape\":").append(q(md.getSearchStringEscape()));
        b.append(",\"user\":").append(q(md.getUserName()));
        return b.append("}").toString();
      }
      case "tool": {
        String[] a = parts(rest, 2);
        String sch = a[0], tbl = a[1];
        StringBuilder b = new StringBuilder(head);
        b.append(",\"catalog\":").append(q(conn.getCatalog()));
        b.append(",\"schema\":").append(q(conn.getSchema()));
        b.append(",\"autoCommit\":").append(conn.getAutoCommit());
        b.append(",\"isolation\":").append(conn.getTransactionIsolation());
        b.append(",\"supportsTransactions\":").append(md.supportsTransactions());
        b.append(",\"schemasInTables\":").append(md.supportsSchemasInTableDefinitions());
        b.append(",\"catalogsInTables\":").append(md.supportsCatalogsInTableDefinitions());
        b.append(",\"extraNameChars\":").append(q(md.getExtraNameCharacters()));
        b.append(",\"maxTableName\":").append(md.getMaxTableNameLength());
        call(b, "tableTypes", md::getTableTypes);
        call(b, "catalogs", md::getCatalogs);
        call(b, "schemas", () -> md.getSchemas());
        call(b, "tables", () -> md.getTables(null, sch, "%", new String[] {"TABLE", "VIEW", "SYSTEM TABLE"}));
        call(b, "columns", () -> md.getColumns(null, sch, tbl, "%"));
        call(b, "primaryKeys", () -> md.getPrimaryKeys(null, sch, tbl));
        call(b, "importedKeys", () -> md.getImportedKeys(null, sch, tbl));
        call(b, "exportedKeys", () -> md.getExportedKeys(null, sch, tbl));
        call(b, "indexInfo", () -> md.getIndexInfo(null, sch, tbl, false, true));
        call(b, "typeInfo", md::getTypeInfo);
        call(b, "procedures", () -> md.getProcedures(null, sch, "%"));
        call(b, "functions", () -> md.getFunctions(null, sch, "%"));
        call(b, "udts", () -> md.getUDTs(null, sch, "%", null));
        return b.append("}").toString();
      }
      case "sleep": {
        Thread.sleep(Long.parseLong(rest));
        return head + ",\"ok\":true}";
      }
      default:
        throw new IllegalArgumentException("unknown step " + op);
    }
  }

  interface Call {
    ResultSet get() throws SQLException;
  }

  static void call(StringBuilder b, String name, Call c) {
    b.append(",").append(q(name)).append(":");
    try (ResultSet rs = c.get()) {
      b.append("{").append(table(rs, false)).append("}");
    } catch (Throwable e) {
      b.append("{\"error\":").append(q(message(e))).append("}");
    }
  }

  static String[] parts(String text, int n) {
    String[] a = text.split(":", -1);
    String[] out = new String[n];
    for (int i = 0; i < n; i++) {
      out[i] = i < a.length && !a[i].isEmpty() ? a[i] : null;
    }
    return out;
  }

  static String table(ResultSet rs, boolean strings) throws SQLException {
    ResultSetMetaData m = rs.getMetaData();
    int n = m.getColumnCount();
    List<String> names = new ArrayList<>(), types = new ArrayList<>(), classes = new ArrayList<>();
    List<String> nullable = new ArrayList<>(), precision = new ArrayList<>();
    for (int c = 1; c <= n; c++) {
      names.add(q(m.getColumnLabel(c)));
      types.add(q(m.getColumnTypeName(c)));
      classes.add(q(m.getColumnClassName(c)));
      nullable.add(String.valueOf(m.isNullable(c)));
      precision.add(m.getPrecision(c) + "/" + m.getScale(c));
    }
    StringBuilder rows = new StringBuilder("[");
    int count = 0;
    while (rs.next()) {
      rows.append(count++ > 0 ? "," : "").append("[");
      for (int c = 1; c <= n; c++) {
        rows.append(c > 1 ? "," : "").append(strings ? q(rs.getString(c)) : value(rs.getObject(c)));
      }
      rows.append("]");
    }
    rows.append("]");
    return "\"columns\":" + names + ",\"types\":" + types + ",\"classes\":" + classes
        + ",\"nullable\":" + nullable + ",\"precision\":" + qs(precision) + ",\"rows\":" + rows;
  }

  static String qs(List<String> items) {
    List<String> out = new ArrayList<>();
    for (String s : items) out.add(q(s));
    return out.toString();
  }

  static String value(Object v) {
    if (v == null) return "null";
    if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      if (Double.isNaN(d) || Double.isInfinite(d)) return q(String.valueOf(d));
      return v.toString();
    }
    if (v instanceof BigDecimal) return ((BigDecimal) v).toPlainString();
    if (v instanceof Number || v instanceof Boolean) return v.toString();
    if (v instanceof byte[]) {
      StringBuilder b = new StringBuilder();
      for (byte x : (byte[]) v) b.append(String.format("%02x", x));
      return q(b.toString());
    }
    return q(v.toString());
  }

  static String q(String s) {
    if (s == null) return "null";
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"': b.append("\\\""); break;
        case '\\': b.append("\\\\"); break;
        case '\n': b.append("\\n"); break;
        case '\r': b.append("\\r"); break;
        case '\t': b.append("\\t"); break;
        default:
          if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
          else b.append(c);
      }
    }
    return b.append("\"").toString();
  }
}
