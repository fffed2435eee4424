import yaml from 'js-yaml';
yaml.loadAll(process.argv[2], ()=>{}, { listener(ev, st) { console.log(ev, st.line, st.kind, ev==='close'? JSON.stringify(st.result): '', st.tag); } });
