import{e as a,f as b,g as c,h as d}from"./chunk-6FKQF4T4.js";import"./chunk-DPJCG2C5.js";export{c as fitToElement,a as loadFleetMap,d as mountPoseMap,b as poseOfPayload};
