#include "jinja.h"

namespace jinja {

chat_template_engine::chat_template_engine(const std::string & source) : body_(parse(tokenize(source))) {}

std::string chat_template_engine::render(const value & context, int64_t now, const limits & lim) const {
    std::string  out;
    render_state st;
    st.out = &out;
    st.lim = lim;
    st.now = now;
    auto globals = std::make_shared<scope>();
    add_globals(st, *globals);
    auto top = std::make_shared<scope>(globals);
    if (context.is_dict()) {
        for (const auto & kv : context.d->items) {
            top->vars[kv.first.str()] = kv.second;
        }
    }
    try {
        for (const auto & s : body_) {
            st.step();
            s->exec(st, *top);  // a loop control outside a loop ends nothing, as in Jinja2 it is a syntax error
        }
    } catch (...) {
        st.release();
        throw;
    }
    st.release();
    return out;
}

std::string render_json(const std::string & source, const std::string & context_json, int64_t now) {
    chat_template_engine t(source);
    return t.render(from_json(context_json), now);
}

}  // namespace jinja
