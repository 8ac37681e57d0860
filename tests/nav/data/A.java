import java.util.List;

public class A {
    /* parse in a comment */
    static String parse(String s) { return "parse" + s; }
    String feed(String data) { return parse(data); }
}
