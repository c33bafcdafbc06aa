package drillspark.formats.excel

import java.io.InputStream
import java.time.ZoneOffset
import java.util.{Date, Locale}

import scala.collection.mutable.ArrayBuffer
import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import com.github.pjfanning.xlsx.StreamingReader
import com.github.pjfanning.xlsx.exceptions.MissingSheetException
import com.github.pjfanning.xlsx.impl.StreamingWorkbook
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.poi.ss.usermodel.{Cell, CellType, DataFormatter, DateUtil, Row, Sheet}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.catalyst.util.{DateTimeUtils, GenericArrayData}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import drillspark.formats.{FormatErrors, FormatOptions, FormatReader, FormatSource}
import drillspark.source.input.InputFile

/** `spark.read.format("drill-excel")`: .xlsx workbooks as Drill 1.22's `excel` format reads them. */
final class ExcelSource extends FormatSource {
  override def reader: FormatReader = ExcelFormat
}

/** Drill's `excel` options with Drill's defaults (ExcelFormatConfig's names). */
final case class ExcelOptions(headerRow: Int, lastRow: Int, firstColumn: Int, lastColumn: Int,
    allTextMode: Boolean, sheetName: String, ignoreErrors: Boolean, maxArraySize: Int,
    thresholdBytesForTempFiles: Int, metadata: Seq[String]) {
  /** The 0-based columns read: from firstColumn (1-based) up to, not including, lastColumn, as
   * Drill 1.22 answers (`firstColumn => 2, lastColumn => 3` reads column B alone). */
  def reads(c: Int): Boolean = c >= math.max(firstColumn - 1, 0) && (lastColumn <= 0 || c < lastColumn - 1)
}

object ExcelOptions {
  def apply(o: FormatOptions): ExcelOptions = {
    val metadata = o.get("metadataColumns").toSeq.flatMap(_.split(',')).map(_.trim.toLowerCase(Locale.ROOT))
      .filter(_.nonEmpty).distinct
    metadata.filterNot(ExcelFormat.MetadataColumns.contains).foreach(m => throw FormatErrors.badConfig("excel",
      s"unknown metadata column '$m' (known: ${ExcelFormat.MetadataColumns.mkString(", ")})"))
    val out = ExcelOptions(o.int("headerRow", 0), o.int("lastRow", 1048576), o.int("firstColumn", 0),
      o.int("lastColumn", 0), o.bool("allTextMode", default = false), o.string("sheetName", ""),
      o.bool("ignoreErrors", default = true), o.int("maxArraySize", -1), o.int("thresholdBytesForTempFiles", -1),
      ExcelFormat.MetadataColumns.filter(metadata.contains))
    if (out.headerRow < -1) throw FormatErrors.badConfig("excel", s"headerRow must be -1 (no header) or a row number, not ${out.headerRow}")
    out
  }
}

/**
 * Drill's `excel` format, read with the streaming xlsx reader Drill 1.22 uses
 * (com.github.pjfanning:excel-streaming-reader over Apache POI). Drill's rules, pinned in
 * tests/formats/test_excel.py: one sheet (`sheetName`, else the first); column names from the
 * `headerRow` (0-based; -1: `field_1`, `field_2`, ...), trimmed, an empty one `field_<n>`, a
 * repeated one `name_1`; each column's type from the first data row: a number FLOAT8, a
 * date-formatted number TIMESTAMP, text or a blank VARCHAR (every column VARCHAR with
 * `allTextMode`); a later cell of another kind is NULL in a FLOAT8 or TIMESTAMP column and
 * its formatted text in a VARCHAR one; formulas give their cached result. The workbook's
 * properties are the metadata columns (`_sheets`, `_creator`, ...) a query names.
 */
object ExcelFormat extends FormatReader {
  override val typeName = "excel"
  override val extensions: Seq[String] = Seq("xlsx")

  /** Drill's implicit metadata columns of a workbook (`_sheets` is a list, the rest text). */
  val MetadataColumns: Seq[String] = Seq("_sheets", "_creator", "_title", "_last_modified_by", "_created_date",
    "_modified_date", "_category", "_content_status", "_description", "_keywords", "_subject", "_revision",
    "_manager", "_company")

  private def formatter = new DataFormatter(Locale.US)

  private final class Opened(val workbook: StreamingWorkbook, in: InputStream) extends AutoCloseable {
    override def close(): Unit = try workbook.close() finally in.close()
  }

  private def open(f: InputFile, o: ExcelOptions, conf: Configuration): Opened = {
    if (o.maxArraySize > 0) org.apache.poi.util.IOUtils.setByteArrayMaxOverride(o.maxArraySize)
    if (o.thresholdBytesForTempFiles > 0)
      org.apache.poi.openxml4j.util.ZipInputStreamZipEntrySource.setThresholdBytesForTempFiles(o.thresholdBytesForTempFiles)
    val p = new Path(f.path)
    val in = p.getFileSystem(conf).open(p)
    try new Opened(StreamingReader.builder().rowCacheSize(100).bufferSize(4096).setReadCoreProperties(true)
      .open(in).asInstanceOf[StreamingWorkbook], in)
    catch {
      case NonFatal(e) =>
        in.close()
        throw FormatErrors.badData(typeName, f.path, "", FormatErrors.describe(e))
    }
  }

  private def sheet(wb: StreamingWorkbook, o: ExcelOptions, f: InputFile): Sheet =
    try { if (o.sheetName.isEmpty) wb.getSheetAt(0) else wb.getSheet(o.sheetName) }
    catch {
      case _: MissingSheetException | _: IllegalArgumentException =>
        throw FormatErrors.badData(typeName, f.path, "", s"VALIDATION ERROR: Could not open sheet ${o.sheetName}")
    }

  /** The first data row's number: the one after the header, or the first with none. */
  private def dataStart(o: ExcelOptions): Int = if (o.headerRow < 0) 0 else o.headerRow + 1

  override def schema(files: Seq[InputFile], options: FormatOptions, conf: Configuration): StructType = {
    val o = ExcelOptions(options)
    var fields = Vector.empty[StructField]
    files.foreach { f =>
      fileColumns(f, o, conf).foreach { field =>
        fields.indexWhere(_.name.equalsIgnoreCase(field.name)) match {
          case -1 => fields :+= field
          case i if fields(i).dataType == field.dataType =>
          case i => throw FormatErrors.badData(typeName, f.path, s"column ${field.name}",
            s"its type ${field.dataType.sql} differs from ${fields(i).dataType.sql} in the table's earlier files")
        }
      }
    }
    StructType(fields ++ o.metadata.map(m =>
      StructField(m, if (m == "_sheets") ArrayType(StringType, containsNull = false) else StringType)))
  }

  /** A file's data columns: names from the header row, types from the first data row. */
  private def fileColumns(f: InputFile, o: ExcelOptions, conf: Configuration): Seq[StructField] = {
    val opened = open(f, o, conf)
    try {
      val rows = sheet(opened.workbook, o, f).rowIterator().asScala
      var header: Option[Row] = None
      var first: Option[Row] = None
      while (first.isEmpty && rows.hasNext) {
        val r = rows.next()
        if (r.getRowNum == o.headerRow) header = Some(r)
        else if (r.getRowNum >= dataStart(o) && r.getRowNum <= o.lastRow) first = Some(r)
        else if (r.getRowNum > o.lastRow) return columnsOf(header, None, o)
      }
      columnsOf(header, first, o)
    } finally opened.close()
  }

  private def columnsOf(header: Option[Row], first: Option[Row], o: ExcelOptions): Seq[StructField] = {
    val width = math.max(header.orElse(first).map(_.getLastCellNum.toInt).getOrElse(0), 0)
    val fmt = formatter
    val seen = scala.collection.mutable.Map[String, Int]()
    (0 until width).filter(o.reads).map { c =>
      val raw = header match {
        case None => s"field_${c + 1}"
        case Some(h) => Option(h.getCell(c)) match {
          // a header cell that is not there at all is "" over a text value, else `field_<n>` (Drill 1.22)
          case None => if (first.flatMap(r => Option(r.getCell(c))).exists(resultType(_) == CellType.STRING)) "" else s"field_${c + 1}"
          case Some(cell) =>
            // a cell with no text is `field_<n>`
            val text = (if (cell.getCellType == CellType.STRING) cell.getStringCellValue else fmt.formatCellValue(cell)).trim
            if (text.isEmpty) s"field_${c + 1}" else text
        }
      }
      val key = raw.toLowerCase(Locale.ROOT)
      val name = seen.get(key) match {
        case None => seen(key) = 0; raw
        case Some(n) => seen(key) = n + 1; s"${raw}_${n + 1}"
      }
      val dt = if (o.allTextMode) StringType else first.flatMap(r => Option(r.getCell(c))).map(kind).getOrElse(StringType)
      StructField(name, dt, nullable = true)
    }
  }

  private def resultType(cell: Cell): CellType =
    if (cell.getCellType == CellType.FORMULA) cell.getCachedFormulaResultType else cell.getCellType

  /** A column's type from its first data cell. */
  private def kind(cell: Cell): DataType = resultType(cell) match {
    case CellType.NUMERIC => if (DateUtil.isCellDateFormatted(cell)) TimestampNTZType else DoubleType
    case CellType.BOOLEAN => BooleanType
    case _ => StringType
  }

  override def read(file: InputFile, options: FormatOptions, schema: StructType,
      conf: Configuration): Iterator[InternalRow] = {
    val o = ExcelOptions(options)
    val opened = open(file, o, conf)
    val s = sheet(opened.workbook, o, file)
    val names = fileColumns(file, o, conf).map(_.name)
    // where each output column is in the sheet (-1: another file's column, or metadata)
    val readCols = (0 until 16384).iterator.filter(o.reads)
    val sheetColumn = names.zip(readCols.take(names.size).toSeq).toMap
      .map { case (n, c) => n.toLowerCase(Locale.ROOT) -> c }
    val positions = schema.fields.map(f => sheetColumn.getOrElse(f.name.toLowerCase(Locale.ROOT), -1))
    val meta: Array[Any] = schema.fields.map(f => if (o.metadata.contains(f.name)) metadataValue(opened.workbook, f.name) else null)
    val fmt = formatter
    val rows = s.rowIterator()
    new Iterator[InternalRow] with AutoCloseable {
      private var pending: Row = _
      private var closed = false
      private var rowNum = -1
      private def advance(): Unit =
        while (pending == null && !closed) {
          val more = try rows.hasNext catch { case NonFatal(e) => fail(rowNum + 1, -1, e) }
          if (!more) close()
          else {
            val r = try rows.next() catch { case NonFatal(e) => fail(rowNum + 1, -1, e) }
            rowNum = r.getRowNum
            if (rowNum > o.lastRow) close()
            else if (rowNum >= dataStart(o) && rowNum != o.headerRow) pending = r
          }
        }
      override def hasNext: Boolean = { advance(); pending != null }
      override def next(): InternalRow = {
        advance()
        val r = pending
        pending = null
        val out = new Array[Any](schema.size)
        var i = 0
        while (i < out.length) {
          val c = positions(i)
          out(i) = if (c < 0) meta(i) else Option(r.getCell(c)).map { cell =>
            val v = try value(cell, schema(i).dataType, fmt)
              catch { case NonFatal(e) => if (o.ignoreErrors) null else fail(r.getRowNum, c, e) }
            v match {
              // a cell of another kind: NULL, or with ignoreErrors false Drill's error
              case Mismatch if o.ignoreErrors => null
              case Mismatch => fail(r.getRowNum, c, new IllegalArgumentException(
                "Error writing data: For input string: \"" + fmt.formatCellValue(cell) + "\""))
              case other => other
            }
          }.orNull
          i += 1
        }
        new GenericInternalRow(out)
      }
      private def fail(row: Int, col: Int, e: Throwable): Nothing = {
        close()
        val place = s"sheet ${s.getSheetName}, row ${row + 1}" + (if (col >= 0) s", column ${col + 1}" else "")
        throw FormatErrors.badData(typeName, file.path, place, FormatErrors.describe(e))
      }
      override def close(): Unit = if (!closed) { closed = true; opened.close() }
    }
  }

  /** A cell as its column's type: another kind is [[Mismatch]] in a FLOAT8, TIMESTAMP or BIT
   * column and its formatted text in a VARCHAR one. */
  private def value(cell: Cell, dt: DataType, fmt: DataFormatter): Any = (dt, resultType(cell)) match {
    case (_, CellType.BLANK) => null
    case (StringType, CellType.STRING) => UTF8String.fromString(cell.getStringCellValue)
    case (StringType, CellType.ERROR) => UTF8String.fromString(fmt.formatCellValue(cell))
    case (StringType, _) =>
      val text = if (cell.getCellType == CellType.FORMULA) cachedText(cell, fmt) else fmt.formatCellValue(cell)
      UTF8String.fromString(text)
    case (DoubleType, CellType.NUMERIC) => cell.getNumericCellValue
    case (TimestampNTZType, CellType.NUMERIC) =>
      DateTimeUtils.localDateTimeToMicros(cell.getLocalDateTimeCellValue)
    case (BooleanType, CellType.BOOLEAN) => cell.getBooleanCellValue
    case _ => Mismatch
  }

  /** A cell whose kind its column's type cannot hold. */
  private case object Mismatch

  /** A formula cell's cached result as text (POI's formatter would show the formula). */
  private def cachedText(cell: Cell, fmt: DataFormatter): String = cell.getCachedFormulaResultType match {
    case CellType.NUMERIC => fmt.formatRawCellContents(cell.getNumericCellValue, cell.getCellStyle.getDataFormat,
      cell.getCellStyle.getDataFormatString)
    case CellType.BOOLEAN => if (cell.getBooleanCellValue) "TRUE" else "FALSE"
    case CellType.STRING => cell.getStringCellValue
    case _ => ""
  }

  private def metadataValue(wb: StreamingWorkbook, name: String): Any = {
    def text(s: String): Any = Option(s).map(UTF8String.fromString).orNull
    def date(d: java.util.Optional[Date]): Any = if (d.isPresent) text(d.get.toInstant.atOffset(ZoneOffset.UTC).toString) else null
    val core = Option(wb.getCoreProperties)
    name match {
      case "_sheets" =>
        val sheets = ArrayBuffer[Any]()
        var i = 0
        while (i < wb.getNumberOfSheets) { sheets += UTF8String.fromString(wb.getSheetName(i)); i += 1 }
        new GenericArrayData(sheets.toArray)
      case "_creator" => core.map(c => text(c.getCreator)).orNull
      case "_title" => core.map(c => text(c.getTitle)).orNull
      case "_last_modified_by" => core.map(c => text(c.getLastModifiedByUser)).orNull
      case "_created_date" => core.map(c => date(java.util.Optional.ofNullable(c.getCreated))).orNull
      case "_modified_date" => core.map(c => date(java.util.Optional.ofNullable(c.getModified))).orNull
      case "_category" => core.map(c => text(c.getCategory)).orNull
      case "_content_status" => core.map(c => text(c.getContentStatus)).orNull
      case "_description" => core.map(c => text(c.getDescription)).orNull
      case "_keywords" => core.map(c => text(c.getKeywords)).orNull
      case "_subject" => core.map(c => text(c.getSubject)).orNull
      case "_revision" => core.map(c => text(c.getRevision)).orNull
      // extended (app.xml) properties: the streaming reader reads the core ones alone
      case _ => null
    }
  }
}
